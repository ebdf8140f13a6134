// Workspace trust: the server only imports graders and runs suites when told it is trusted
// (initializationOptions.trusted). `holodeck.trustOverride` exists for testing the extension
// and is a restricted setting, so a workspace cannot grant itself trust.

export type TrustOverride = "auto" | "trusted" | "untrusted";

export const UNTRUSTED_RUN_REASON =
  "Running HoloDeck tests is disabled in an untrusted workspace: a run executes the agent's " +
  "function tools and code graders. Trust this workspace (Workspaces: Manage Workspace Trust) to run tests.";

export function parseTrustOverride(value: unknown): TrustOverride {
  return value === "trusted" || value === "untrusted" ? value : "auto";
}

export function effectiveTrust(override: TrustOverride, workspaceTrusted: boolean): boolean {
  if (override === "trusted") return true;
  if (override === "untrusted") return false;
  return workspaceTrusted;
}

export type Gate = { allowed: true } | { allowed: false; reason: string };

/** May a run command go to the server? (Others — discovery, reports, cancel — always may.) */
export function gateCommand(command: string, runCommands: ReadonlySet<string>, trusted: boolean): Gate {
  if (!runCommands.has(command) || trusted) return { allowed: true };
  return { allowed: false, reason: UNTRUSTED_RUN_REASON };
}
