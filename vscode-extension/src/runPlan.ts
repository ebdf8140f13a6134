// A Testing-view run request -> the server commands that carry it out. Each included item
// maps to the narrowest command covering it (file: runAll, case: runCase, turn: runTurn);
// an item with excluded descendants is split into its remaining children; items already
// covered by an included ancestor are dropped, so nothing runs twice. A simulated
// conversation's generated items cannot run alone (the turns exist only in a run of the
// whole conversation): including one runs its case, excluding one excludes nothing.
import { ServerCommands } from "./protocol";
import { idOf, parseTestId, type TestRef } from "./testIds";

export interface RunStep {
  ref: TestRef;
  command: string;
  args: unknown[];
}

/** Is `inner` the same item as `outer` or under it? */
export function covers(outer: TestRef, inner: TestRef): boolean {
  if (outer.uri !== inner.uri) return false;
  if (outer.kind === "file") return true;
  if (inner.kind === "file") return false;
  if (outer.caseIndex !== inner.caseIndex) return false;
  if (outer.kind === "case") return true;
  if (outer.kind === "generated") return inner.kind === "generated" && inner.part === outer.part;
  return inner.kind === "turn" && inner.turnIndex === outer.turnIndex;
}

/** What running `ref` runs: a generated item's whole case. */
export function runnable(ref: TestRef): TestRef {
  return ref.kind === "generated" ? { kind: "case", uri: ref.uri, caseIndex: ref.caseIndex } : ref;
}

export function stepFor(ref: TestRef): RunStep {
  switch (ref.kind) {
    case "file":
      return { ref, command: ServerCommands.runAll, args: [ref.uri] };
    case "case":
      return { ref, command: ServerCommands.runCase, args: [ref.uri, ref.caseIndex] };
    case "turn":
      return { ref, command: ServerCommands.runTurn, args: [ref.uri, ref.caseIndex, ref.turnIndex] };
    case "generated":
      return stepFor(runnable(ref));
  }
}

function order(a: TestRef, b: TestRef): number {
  if (a.uri !== b.uri) return a.uri < b.uri ? -1 : 1;
  const ca = a.kind === "file" ? -1 : a.caseIndex;
  const cb = b.kind === "file" ? -1 : b.caseIndex;
  if (ca !== cb) return ca - cb;
  const ta = a.kind === "turn" ? a.turnIndex : -1;
  const tb = b.kind === "turn" ? b.turnIndex : -1;
  return ta - tb;
}

export function planRun(
  includedIds: readonly string[],
  excludedIds: readonly string[],
  childrenOf: (ref: TestRef) => TestRef[],
): RunStep[] {
  const included = includedIds.map((id) => runnable(parseTestId(id)));
  const excluded = excludedIds.map(parseTestId).filter((ref) => ref.kind !== "generated");
  const isExcluded = (ref: TestRef): boolean => excluded.some((ex) => covers(ex, ref));
  const top = included.filter(
    (ref) => !included.some((other) => other !== ref && idOf(other) !== idOf(ref) && covers(other, ref)),
  );
  const unique = new Map<string, TestRef>();
  for (const ref of top) unique.set(idOf(ref), ref);
  const result: TestRef[] = [];
  const expand = (ref: TestRef): void => {
    if (isExcluded(ref)) return;
    const hasExcludedBelow = excluded.some((ex) => covers(ref, ex));
    if (!hasExcludedBelow) {
      result.push(ref);
      return;
    }
    for (const child of childrenOf(ref)) if (child.kind !== "generated") expand(child);
  };
  for (const ref of unique.values()) expand(ref);
  return result.sort(order).map(stepFor);
}
