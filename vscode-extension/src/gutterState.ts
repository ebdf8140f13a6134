// Gutter icons per turn, from `holodeck/runResult` notifications (lens runs, Testing-view
// runs and automatic re-grades alike). Marks are kept by (case, turn) and placed at the
// turn's `input:` line of the latest discovery, so they follow the text as it moves; an edit
// touching a turn removes its mark (its result no longer describes the text).
import type { Discovery, LspRange, RunResultParams } from "./protocol";
import { caseOutcomes, type TurnState } from "./resultMessages";
import { turnsTouchedBy } from "./editTracking";

export type GutterKind = "passed" | "failed" | "skipped";

export function gutterKind(state: TurnState): GutterKind {
  if (state === "passed") return "passed";
  if (state === "skipped") return "skipped";
  return "failed"; // errored turns did not pass either: same icon as failed
}

export class GutterState {
  private readonly marks = new Map<string, Map<string, GutterKind>>();

  record(params: RunResultParams): void {
    const byTurn = this.marks.get(params.uri) ?? new Map<string, GutterKind>();
    for (const outcome of caseOutcomes(params.result)) {
      byTurn.set(`${params.caseIndex}/${outcome.turnIndex}`, gutterKind(outcome.state));
    }
    this.marks.set(params.uri, byTurn);
  }

  /** Drop the marks of turns an edit touched; true when anything was dropped. */
  edited(uri: string, discovery: Discovery | undefined, changes: readonly LspRange[]): boolean {
    const byTurn = this.marks.get(uri);
    if (byTurn === undefined) return false;
    let dropped = false;
    for (const turn of turnsTouchedBy(discovery, changes)) {
      dropped = byTurn.delete(`${turn.caseIndex}/${turn.turnIndex}`) || dropped;
    }
    return dropped;
  }

  clear(uri: string): void {
    this.marks.delete(uri);
  }

  /** Zero-width ranges at the start of each marked turn's `input:` line, by kind. */
  ranges(discovery: Discovery | undefined): Record<GutterKind, LspRange[]> {
    const out: Record<GutterKind, LspRange[]> = { passed: [], failed: [], skipped: [] };
    if (discovery === undefined) return out;
    const byTurn = this.marks.get(discovery.uri);
    if (byTurn === undefined) return out;
    for (const found of discovery.cases) {
      for (const turn of found.turns) {
        const kind = byTurn.get(`${found.index}/${turn.index}`);
        if (kind === undefined) continue;
        const line = turn.inputRange.start.line;
        out[kind].push({ start: { line, character: 0 }, end: { line, character: 0 } });
      }
    }
    return out;
  }
}
