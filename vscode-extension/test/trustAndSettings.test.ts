import assert from "node:assert/strict";
import { test } from "node:test";
import { filterInlayHints } from "../src/inlayHints";
import { RUN_COMMANDS, ServerCommands } from "../src/protocol";
import { globPatterns, initializationOptions, readSettings, serverSettings } from "../src/settings";
import { effectiveTrust, gateCommand, parseTrustOverride, UNTRUSTED_RUN_REASON } from "../src/trust";

test("trust follows the workspace unless overridden for testing", () => {
  assert.equal(effectiveTrust("auto", true), true);
  assert.equal(effectiveTrust("auto", false), false);
  assert.equal(effectiveTrust("trusted", false), true);
  assert.equal(effectiveTrust("untrusted", true), false);
  assert.equal(parseTrustOverride("yes please"), "auto");
});

test("run commands are gated while untrusted, with the explanation; others pass", () => {
  for (const command of [ServerCommands.runAll, ServerCommands.runCase, ServerCommands.runTurn, ServerCommands.regradeCase]) {
    assert.deepEqual(gateCommand(command, RUN_COMMANDS, false), { allowed: false, reason: UNTRUSTED_RUN_REASON });
    assert.deepEqual(gateCommand(command, RUN_COMMANDS, true), { allowed: true });
  }
  assert.deepEqual(gateCommand(ServerCommands.cancelRun, RUN_COMMANDS, false), { allowed: true });
  assert.deepEqual(gateCommand(ServerCommands.lastRunReport, RUN_COMMANDS, false), { allowed: true });
  assert.match(UNTRUSTED_RUN_REASON, /function tools and code graders/);
});

test("inlay hints pass through when enabled and are dropped when disabled", () => {
  let asked = 0;
  const provide = () => {
    asked++;
    return [{ label: "✓ 25587" }];
  };
  assert.deepEqual(filterInlayHints(true, provide), [{ label: "✓ 25587" }]);
  assert.deepEqual(filterInlayHints(false, provide), []);
  assert.equal(asked, 1, "the server is not even asked when disabled");
});

test("settings: defaults, validation and what the server is sent", () => {
  const defaults = readSettings(() => undefined);
  assert.deepEqual(defaults, {
    serverPath: undefined,
    trustOverride: "auto",
    agentGlobs: ["agent.yaml", "*.agent.yaml"],
    cassettePath: undefined,
    parallelTestCases: undefined,
    debounceMs: 50,
    inlayHintsEnabled: true,
    backends: {},
    regradeOnEdit: true,
    baseline: undefined,
    saveRuns: true,
  });
  assert.deepEqual(serverSettings(defaults), {
    agentGlobs: ["agent.yaml", "*.agent.yaml"],
    debounceMs: 50,
    backends: {},
    regradeOnEdit: true,
    baseline: null, // sent as null: clearing the setting clears the server's
    saveRuns: true,
  });
  const values: Record<string, unknown> = {
    "server.path": "  ",
    agentGlobs: ["suites/*.yml"],
    cassettePath: "cassettes/run.json",
    parallelTestCases: 4.7,
    debounceMs: -3,
    "inlayHints.enabled": false,
    trustOverride: "trusted",
    regradeOnEdit: false,
    baseline: " v1 ",
    saveRuns: false,
  };
  const custom = readSettings((key) => values[key]);
  assert.equal(custom.serverPath, undefined);
  assert.equal(custom.debounceMs, 50, "a negative delay falls back to the default");
  assert.equal(custom.inlayHintsEnabled, false);
  assert.deepEqual(serverSettings(custom), {
    agentGlobs: ["suites/*.yml"],
    debounceMs: 50,
    backends: {},
    regradeOnEdit: false,
    baseline: " v1 ", // the server trims it
    saveRuns: false,
    cassettePath: "cassettes/run.json",
    parallel: 4,
  });
  const init = initializationOptions(custom, false);
  assert.equal(init.trusted, false, "trust comes from the editor, never from the trustOverride value itself");
  assert.equal(init.cassettePath, "cassettes/run.json");
  assert.equal(readSettings((key) => (key === "agentGlobs" ? [] : undefined)).agentGlobs.length, 2);
});

test("agent globs become selector patterns matching at any depth", () => {
  assert.deepEqual(globPatterns(["agent.yaml", "*.agent.yaml", "**/x.yml", "suites/*.yml"]), [
    "**/agent.yaml",
    "**/*.agent.yaml",
    "**/x.yml",
    "**/suites/*.yml",
  ]);
});
