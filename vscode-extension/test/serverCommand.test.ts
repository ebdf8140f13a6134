import assert from "node:assert/strict";
import { test } from "node:test";
import { findOnPath, resolveServerCommand, type ResolveEnv } from "../src/serverCommand";

function env(files: string[], overrides: Partial<ResolveEnv> = {}): ResolveEnv & { imports: string[] } {
  const imports: string[] = [];
  const existing = new Set(files);
  return {
    imports,
    configuredPath: undefined,
    pythonPath: undefined,
    platform: "linux",
    homeDir: "/home/u",
    isFile: (file) => existing.has(file),
    which: (name) => findOnPath(name, "/usr/bin:/usr/local/bin", (f) => existing.has(f), ":"),
    canImport: async (python) => {
      imports.push(python);
      return false;
    },
    ...overrides,
  };
}

test("the setting wins, with ~ expanded", async () => {
  const result = await resolveServerCommand(
    env(["/home/u/bin/holodeck-lsp", "/usr/bin/holodeck-lsp"], { configuredPath: "~/bin/holodeck-lsp", pythonPath: "/v/bin/python" }),
  );
  assert.deepEqual(result, { found: true, command: "/home/u/bin/holodeck-lsp", args: [], source: "setting" });
});

test("a setting that points nowhere is reported, not silently replaced", async () => {
  const result = await resolveServerCommand(env(["/usr/bin/holodeck-lsp"], { configuredPath: "/opt/nope/holodeck-lsp" }));
  assert.equal(result.found, false);
  assert.ok(!result.found && result.message.includes("holodeck.server.path"));
  // "not found" (the path is wrong), not "not installed"; the fix is the setting.
  assert.ok(!result.found && result.message.startsWith("holodeck-lsp was not found at /opt/nope/holodeck-lsp"));
  assert.ok(!result.found && !result.message.includes("not installed") && result.fix === "setting");
  assert.match(result.message, /Fix the setting .* or clear it/);
});

test("a bare command name in the setting is looked up on PATH", async () => {
  const result = await resolveServerCommand(env(["/usr/local/bin/holodeck-lsp"], { configuredPath: "holodeck-lsp" }));
  assert.deepEqual(result, { found: true, command: "/usr/local/bin/holodeck-lsp", args: [], source: "setting" });
});

test("next: the script beside the selected interpreter", async () => {
  const result = await resolveServerCommand(env(["/proj/.venv/bin/holodeck-lsp", "/usr/bin/holodeck-lsp"], { pythonPath: "/proj/.venv/bin/python" }));
  assert.deepEqual(result, { found: true, command: "/proj/.venv/bin/holodeck-lsp", args: [], source: "python" });
});

test("on Windows: holodeck-lsp.exe in Scripts", async () => {
  const result = await resolveServerCommand(
    env(["C:/env/Scripts/holodeck-lsp.exe"], { platform: "win32", pythonPath: "C:/env/python.exe", which: () => undefined }),
  );
  assert.equal(result.found && result.command.replace(/\\/g, "/"), "C:/env/Scripts/holodeck-lsp.exe");
});

test("next: python -m holodeck_lsp when the interpreter can import it", async () => {
  const probe = env(["/usr/bin/holodeck-lsp"], { pythonPath: "/conda/bin/python", canImport: async () => true });
  assert.deepEqual(await resolveServerCommand(probe), { found: true, command: "/conda/bin/python", args: ["-m", "holodeck_lsp"], source: "python-module" });
});

test("next: PATH (the interpreter was asked first)", async () => {
  const probe = env(["/usr/local/bin/holodeck-lsp"], { pythonPath: "/sys/bin/python3" });
  assert.deepEqual(await resolveServerCommand(probe), { found: true, command: "/usr/local/bin/holodeck-lsp", args: [], source: "path" });
  assert.deepEqual(probe.imports, ["/sys/bin/python3"]);
});

test("nothing found: a message with the install command for that interpreter", async () => {
  const result = await resolveServerCommand(env([], { pythonPath: "/sys/bin/python3" }));
  assert.equal(result.found, false);
  assert.ok(!result.found);
  assert.equal(result.installCommand, '"/sys/bin/python3" -m pip install holodeck-lsp');
  assert.match(result.message, /not found in the selected Python interpreter \(\/sys\/bin\/python3\) or PATH/);
  assert.ok(!result.found && result.fix === "install");
  const plain = await resolveServerCommand(env([]));
  assert.ok(!plain.found && plain.installCommand === "pip install holodeck-lsp" && plain.message.includes("pip install holodeck-lsp"));
});
