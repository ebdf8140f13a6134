// "HoloDeck: Open Run Report": what the webview shows and where a click in it leads. The page
// (holodeck_lsp/reports/run/html) is the server's; it posts `{type: "reveal", case, turn,
// loc}` when a turn is clicked. No `vscode` import, so the unit tests can load it.
import type { Discovery, LspPosition, LspRange } from "./protocol";

export type LastReportHtmlResponse =
  | { status: "done"; html: string }
  | { status: "none" | "refused"; reason: string };

export interface RevealMessage {
  type: "reveal";
  case: number;
  /** The turn of a multi-turn case; null for a single-turn case. */
  turn: number | null;
  /** Where the server located it in the file (0-based line, character), if it could. */
  loc: [number, number] | null;
}

function isIndex(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

/** The webview is another context: its messages are data to validate, not to trust. */
export function parseReveal(message: unknown): RevealMessage | undefined {
  if (typeof message !== "object" || message === null) return undefined;
  const m = message as Record<string, unknown>;
  if (m.type !== "reveal" || !isIndex(m.case)) return undefined;
  const turn = isIndex(m.turn) ? m.turn : null;
  const loc = Array.isArray(m.loc) && m.loc.length === 2 && m.loc.every(isIndex) ? (m.loc as [number, number]) : null;
  return { type: "reveal", case: m.case, turn, loc };
}

function point(position: LspPosition): LspRange {
  return { start: position, end: position };
}

/**
 * The range to reveal for a click: the Testing view's discovery of the document when it has
 * the case (it follows edits made since the report was drawn), else the page's `loc`.
 */
export function revealRange(message: RevealMessage, discovery: Discovery | undefined): LspRange | undefined {
  const found = discovery?.cases.find((c) => c.index === message.case);
  if (found !== undefined) {
    const turn = message.turn === null ? undefined : found.turns.find((t) => t.index === message.turn);
    return point((turn ?? found).range.start);
  }
  if (message.loc !== null) return point({ line: message.loc[0], character: message.loc[1] });
  return undefined;
}

const CSP_META = /<meta\s+http-equiv="Content-Security-Policy"\s+content="([^"]*)"/i;

/**
 * The page's own Content Security Policy, if it is one a webview may show as is: nothing from
 * anywhere by default (`default-src 'none'`) and scripts only by hash. The page is shown with
 * that policy untouched (webviews honour a meta CSP); a page without one is not shown.
 */
export function pagePolicy(html: string): string | undefined {
  const policy = CSP_META.exec(html)?.[1];
  if (policy === undefined) return undefined;
  const directives = new Map(
    policy
      .split(";")
      .map((d) => d.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map((parts) => [parts[0].toLowerCase(), parts.slice(1)] as const),
  );
  const defaults = directives.get("default-src");
  const scripts = directives.get("script-src");
  if (defaults?.length !== 1 || defaults[0] !== "'none'") return undefined;
  if (scripts !== undefined && !scripts.every((s) => /^'sha(256|384|512)-[A-Za-z0-9+/=]+'$/.test(s))) return undefined;
  return policy;
}

/** The panel's title: the file's name. */
export function panelTitle(uri: string): string {
  const name = decodeURIComponent(uri.split("/").pop() ?? "") || "agent.yaml";
  return `Run Report: ${name}`;
}
