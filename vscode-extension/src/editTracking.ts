// Which turns an edit touched, from the last discovery of the document: their Testing-view
// results become outdated and their gutter icons go. The discovery predates the edit
// (that is what we want: the ranges the edit was made against); a burst of edits before
// the next (debounced) discovery is measured against the same, slightly older ranges.
import type { Discovery, LspRange } from "./protocol";
import { rangesTouch } from "./ranges";
import { turnId } from "./testIds";

export interface TouchedTurn {
  caseIndex: number;
  turnIndex: number;
  id: string;
}

export function turnsTouchedBy(discovery: Discovery | undefined, changes: readonly LspRange[]): TouchedTurn[] {
  if (discovery === undefined || changes.length === 0) return [];
  const touched: TouchedTurn[] = [];
  for (const found of discovery.cases) {
    for (const turn of found.turns) {
      if (changes.some((change) => rangesTouch(change, turn.range))) {
        touched.push({ caseIndex: found.index, turnIndex: turn.index, id: turnId(discovery.uri, found.index, turn.index) });
      }
    }
  }
  return touched;
}

export interface InvalidatingController<I> {
  invalidateTestResults(items: readonly I[]): void;
}

/** Mark the results of turns touched by an edit outdated (TestController.invalidateTestResults). */
export function invalidateEditedTurns<I>(
  controller: InvalidatingController<I>,
  discovery: Discovery | undefined,
  changes: readonly LspRange[],
  findItem: (id: string) => I | undefined,
): I[] {
  const items = turnsTouchedBy(discovery, changes)
    .map((turn) => findItem(turn.id))
    .filter((item): item is I => item !== undefined);
  if (items.length > 0) controller.invalidateTestResults(items);
  return items;
}
