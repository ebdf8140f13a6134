// Position arithmetic on plain LSP ranges (0-based), shared by outdated marking and gutter
// clearing: "did this edit touch that turn?"
import type { LspPosition, LspRange } from "./protocol";

export function comparePositions(a: LspPosition, b: LspPosition): number {
  return a.line !== b.line ? a.line - b.line : a.character - b.character;
}

/** Inclusive at both ends: typing at the very end of a turn's last line edits that turn. */
export function rangesTouch(a: LspRange, b: LspRange): boolean {
  return comparePositions(a.start, b.end) <= 0 && comparePositions(b.start, a.end) <= 0;
}
