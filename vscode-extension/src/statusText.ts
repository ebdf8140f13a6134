// The status bar item's text and tooltip: server state plus the last run's summary.

export type ServerState = "starting" | "running" | "stopped" | "notFound" | "failed";

export interface LastRun {
  label: string;
  passed: number;
  failed: number;
  status: "done" | "cancelled" | "refused";
  reason?: string;
}

const ICONS: Record<ServerState, string> = {
  starting: "$(loading~spin)",
  running: "$(beaker)",
  stopped: "$(debug-stop)",
  notFound: "$(warning)",
  failed: "$(error)",
};

const WORDS: Record<ServerState, string> = {
  starting: "starting",
  running: "running",
  stopped: "stopped",
  // "not found", not "not installed": a wrong holodeck.server.path is not a missing install.
  notFound: "holodeck-lsp not found",
  failed: "server failed",
};

export function statusText(state: ServerState, trusted: boolean, last: LastRun | undefined): { text: string; tooltip: string } {
  let text = `${ICONS[state]} HoloDeck`;
  const lines = [`holodeck-lsp: ${WORDS[state]}`, trusted ? "Workspace trusted: runs enabled" : "Untrusted workspace: runs disabled"];
  if (state === "notFound" || state === "failed") text += `: ${WORDS[state]}`;
  if (last !== undefined) {
    if (last.status === "refused") {
      text += " $(circle-slash)";
      lines.push(`Last run (${last.label}) refused: ${last.reason ?? ""}`);
    } else {
      const mark = last.failed === 0 ? "$(pass)" : "$(error)";
      text += ` ${mark} ${last.passed}/${last.passed + last.failed}`;
      lines.push(`Last run (${last.label}): ${last.passed} passed, ${last.failed} failed${last.status === "cancelled" ? " (cancelled)" : ""}`);
    }
  }
  lines.push("Click to show the HoloDeck output");
  return { text, tooltip: lines.join("\n") };
}
