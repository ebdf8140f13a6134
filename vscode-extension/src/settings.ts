// The extension's settings (contributed in package.json under `holodeck.*`) and what the
// server is sent: the server reads camelCase keys of section `holodeck` through
// workspace/configuration (agentGlobs, debounceMs, cassettePath, backends, regradeOnEdit,
// baseline, saveRuns); client-only
// keys are left out, and parallelTestCases is forwarded as `parallel` for a future server
// (today's server ignores it).
import type { TrustOverride } from "./trust";
import { parseTrustOverride } from "./trust";

export const DEFAULT_AGENT_GLOBS: readonly string[] = ["agent.yaml", "*.agent.yaml"];
export const DEFAULT_DEBOUNCE_MS = 50;

export interface HolodeckSettings {
  serverPath: string | undefined;
  trustOverride: TrustOverride;
  agentGlobs: string[];
  cassettePath: string | undefined;
  parallelTestCases: number | undefined;
  debounceMs: number;
  inlayHintsEnabled: boolean;
  backends: Record<string, unknown>;
  regradeOnEdit: boolean;
  /** `holodeck.baseline`: the stored run (tag, id) regression marks compare with. */
  baseline: string | undefined;
  saveRuns: boolean;
}

/** Reads like `vscode.WorkspaceConfiguration.get` on section `holodeck`. */
export type SettingReader = (key: string) => unknown;

function stringOrUndefined(value: unknown): string | undefined {
  return typeof value === "string" && value.trim() !== "" ? value : undefined;
}

export function readSettings(get: SettingReader): HolodeckSettings {
  const globs = get("agentGlobs");
  const debounce = get("debounceMs");
  const parallel = get("parallelTestCases");
  const backends = get("backends");
  return {
    serverPath: stringOrUndefined(get("server.path")),
    trustOverride: parseTrustOverride(get("trustOverride")),
    agentGlobs:
      Array.isArray(globs) && globs.length > 0 && globs.every((g) => typeof g === "string" && g !== "")
        ? (globs as string[])
        : [...DEFAULT_AGENT_GLOBS],
    cassettePath: stringOrUndefined(get("cassettePath")),
    parallelTestCases: typeof parallel === "number" && parallel >= 1 ? Math.floor(parallel) : undefined,
    debounceMs: typeof debounce === "number" && debounce >= 0 ? debounce : DEFAULT_DEBOUNCE_MS,
    inlayHintsEnabled: get("inlayHints.enabled") !== false,
    backends: typeof backends === "object" && backends !== null ? (backends as Record<string, unknown>) : {},
    regradeOnEdit: get("regradeOnEdit") !== false,
    baseline: stringOrUndefined(get("baseline")),
    saveRuns: get("saveRuns") !== false,
  };
}

/** The `holodeck` section as the server reads it. */
export function serverSettings(settings: HolodeckSettings): Record<string, unknown> {
  const out: Record<string, unknown> = {
    agentGlobs: settings.agentGlobs,
    debounceMs: settings.debounceMs,
    backends: settings.backends,
    regradeOnEdit: settings.regradeOnEdit,
    // Always sent (null when unset): clearing the setting must clear the server's too.
    baseline: settings.baseline ?? null,
    saveRuns: settings.saveRuns,
  };
  if (settings.cassettePath !== undefined) out.cassettePath = settings.cassettePath;
  if (settings.parallelTestCases !== undefined) out.parallel = settings.parallelTestCases;
  return out;
}

/** initializationOptions: trust (only settable here, by design of the server) + settings. */
export function initializationOptions(settings: HolodeckSettings, trusted: boolean): Record<string, unknown> {
  return { trusted, ...serverSettings(settings) };
}

/** Document selector patterns for the agent globs ("agent.yaml" matches at any depth). */
export function globPatterns(globs: readonly string[]): string[] {
  return globs.map((glob) => (glob.startsWith("**/") || glob.startsWith("/") ? glob : `**/${glob}`));
}
