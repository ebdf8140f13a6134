// "HoloDeck: Compare with Baseline": what the server's `holodeck.compareWithBaseline` answer
// becomes in the editor. No `vscode` import, so the unit tests can load it.
import type { CompareResponse } from "./protocol";

/** The Markdown to preview, or undefined when there is nothing to show (the reason is then
 * the answer's). The server is another process: its answer is data to check. */
export function comparisonMarkdown(answer: CompareResponse | null | undefined): string | undefined {
  if (answer === null || answer === undefined || answer.status !== "done") return undefined;
  return typeof answer.markdown === "string" ? answer.markdown : undefined;
}

/** One line for the notification beside the preview: `2 turns regressed: latest run … against v1`. */
export function comparisonSummary(answer: CompareResponse | null | undefined): string {
  if (answer === null || answer === undefined || answer.status !== "done") return "HoloDeck: nothing compared.";
  const count = Number.isInteger(answer.regressions) ? answer.regressions : 0;
  const what = count === 0 ? "no turn regressed" : `${count} turn${count === 1 ? "" : "s"} regressed`;
  return `HoloDeck: ${what} — ${answer.head} against ${answer.base}.`;
}

/** The comparison page's panel title: the file's name. */
export function comparisonTitle(uri: string): string {
  const name = decodeURIComponent(uri.split("/").pop() ?? "") || "agent.yaml";
  return `Compare: ${name}`;
}
