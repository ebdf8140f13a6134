// "HoloDeck: Cancel Run": what the server's `holodeck.cancelRun [uri]` answer becomes in the
// editor. Runs started from a code lens (Run case / Run turn / Run all) have no cancel button
// of the Testing view; the palette command reaches them (and Testing-view runs too). No
// `vscode` import, so the unit tests can load it.

export interface CancelMessage {
  kind: "info" | "warning";
  text: string;
}

export const CANCELLING = "HoloDeck: Cancelling…";
export const NOTHING_RUNNING = "HoloDeck: Nothing is running in this file.";

/** The message for the server's answer (`{"status": "cancelling" | "idle"}`; anything else is
 * an answer this extension does not know: the server is another process, its answer is data). */
export function cancelMessage(answer: unknown): CancelMessage {
  const status = typeof answer === "object" && answer !== null ? (answer as { status?: unknown }).status : undefined;
  if (status === "cancelling") return { kind: "info", text: CANCELLING };
  if (status === "idle") return { kind: "info", text: NOTHING_RUNNING };
  const reason = typeof answer === "object" && answer !== null ? (answer as { reason?: unknown }).reason : undefined;
  return {
    kind: "warning",
    text: `HoloDeck: the run could not be cancelled — ${typeof reason === "string" && reason !== "" ? reason : "no answer from holodeck-lsp"}.`,
  };
}
