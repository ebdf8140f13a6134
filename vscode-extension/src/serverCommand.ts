// Which holodeck-lsp to start: the `holodeck.server.path` setting, else the one installed in
// the selected Python interpreter (the script next to it, else `python -m holodeck_lsp` when
// that interpreter can import it), else `holodeck-lsp` on PATH. File system and process
// probes are parameters, so this is testable without an editor or an installation.
import * as path from "node:path";

export const INSTALL_COMMAND = "pip install holodeck-lsp";

export interface ResolveEnv {
  /** `holodeck.server.path` (may start with `~`). */
  configuredPath: string | undefined;
  /** The selected interpreter's executable, from the Python extension, if any. */
  pythonPath: string | undefined;
  platform: NodeJS.Platform;
  homeDir: string;
  isFile(file: string): boolean;
  /** Full path of `name` found on PATH, or undefined. */
  which(name: string): string | undefined;
  /** Can `python` import holodeck_lsp? (spawns the interpreter; only asked as a fallback) */
  canImport(python: string): Promise<boolean>;
}

export type ServerSource = "setting" | "python" | "python-module" | "path";

export type Resolution =
  | { found: true; command: string; args: string[]; source: ServerSource }
  | {
      found: false;
      message: string;
      installCommand: string;
      /** What to fix first: the `holodeck.server.path` setting, or the installation. */
      fix: "setting" | "install";
    };

function scriptNames(platform: NodeJS.Platform): string[] {
  return platform === "win32" ? ["holodeck-lsp.exe", "holodeck-lsp.cmd", "holodeck-lsp"] : ["holodeck-lsp"];
}

function expandHome(file: string, home: string): string {
  return file === "~" || file.startsWith("~/") ? path.join(home, file.slice(1)) : file;
}

/** The install command for the interpreter the user works with (plain pip otherwise). */
export function installCommandFor(pythonPath: string | undefined): string {
  return pythonPath ? `"${pythonPath}" -m ${INSTALL_COMMAND}` : INSTALL_COMMAND;
}

export async function resolveServerCommand(env: ResolveEnv): Promise<Resolution> {
  const configured = env.configuredPath?.trim();
  if (configured) {
    const command = expandHome(configured, env.homeDir);
    // A bare name ("holodeck-lsp") is looked up on PATH; a path must exist.
    const resolved = command.includes("/") || command.includes("\\") ? (env.isFile(command) ? command : undefined) : env.which(command);
    if (resolved !== undefined) return { found: true, command: resolved, args: [], source: "setting" };
    return {
      found: false,
      message: `holodeck-lsp was not found at ${configured} (setting holodeck.server.path). Fix the setting to the holodeck-lsp executable, or clear it to use the one of the selected Python interpreter.`,
      installCommand: installCommandFor(env.pythonPath),
      fix: "setting",
    };
  }
  if (env.pythonPath) {
    const folder = path.dirname(env.pythonPath);
    // venv layouts: bin/ next to python on POSIX; Scripts\ next to (or under) python.exe on Windows.
    const folders = env.platform === "win32" ? [folder, path.join(folder, "Scripts")] : [folder];
    for (const dir of folders) {
      for (const name of scriptNames(env.platform)) {
        const candidate = path.join(dir, name);
        if (env.isFile(candidate)) return { found: true, command: candidate, args: [], source: "python" };
      }
    }
    if (await env.canImport(env.pythonPath)) {
      return { found: true, command: env.pythonPath, args: ["-m", "holodeck_lsp"], source: "python-module" };
    }
  }
  for (const name of scriptNames(env.platform)) {
    const onPath = env.which(name);
    if (onPath !== undefined) return { found: true, command: onPath, args: [], source: "path" };
  }
  const where = env.pythonPath ? `the selected Python interpreter (${env.pythonPath}) or PATH` : "PATH";
  return {
    found: false,
    message: `holodeck-lsp was not found in ${where}. Install it with: ${installCommandFor(env.pythonPath)}`,
    installCommand: installCommandFor(env.pythonPath),
    fix: "install",
  };
}

/** PATH lookup for `which` (no shell): the first executable file named `name`. */
export function findOnPath(
  name: string,
  pathVariable: string | undefined,
  isFile: (file: string) => boolean,
  delimiter: string = path.delimiter,
): string | undefined {
  for (const dir of (pathVariable ?? "").split(delimiter)) {
    if (!dir) continue;
    const candidate = path.join(dir, name);
    if (isFile(candidate)) return candidate;
  }
  return undefined;
}
