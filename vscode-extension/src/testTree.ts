// The Testing view's tree for one document: file -> cases -> turns, built from the server's
// `holodeck/discoverTests` answer. Written against the structural shape of vscode.TestItem
// (the unit tests pass a stand-in), and reusing existing items so VS Code keeps their state.
// A simulated case keeps the items a run gave it for its generated turns (simulatedItems.ts)
// while it is still simulated; they point at its `simulated_user` key.
import type { Discovery, LspRange } from "./protocol";
import { caseId, parseTestId, turnId } from "./testIds";

export interface ItemCollectionLike<I> {
  get(id: string): I | undefined;
  replace(items: readonly I[]): void;
  forEach(callback: (item: I) => unknown): void;
  add(item: I): void;
  delete(id: string): void;
}

export interface TestItemLike<R> {
  readonly id: string;
  label: string;
  description?: string;
  range: R | undefined;
  canResolveChildren: boolean;
  sortText?: string;
}

export interface TreeFactory<I extends TestItemLike<R>, R> {
  createItem(id: string, label: string, uri: string): I;
  toRange(range: LspRange): R;
  children(item: I): ItemCollectionLike<I>;
}

export function caseLabel(index: number, name: string | null): string {
  return name !== null && name !== "" ? name : `test_cases[${index}]`;
}

/** The longest input shown in a turn's label (the Testing view is narrow). */
export const TURN_INPUT_LIMIT = 40;

/** `turn 1: And 100 minus 85?` — the input on one line, cut to TURN_INPUT_LIMIT with `…`. */
export function turnLabel(index: number, input?: string | null): string {
  const flat = (input ?? "").split(/\s+/).filter((word) => word !== "").join(" ");
  if (flat === "") return `turn ${index}`;
  const shown = flat.length <= TURN_INPUT_LIMIT ? flat : `${flat.slice(0, TURN_INPUT_LIMIT - 1)}…`;
  return `turn ${index}: ${shown}`;
}

/** The mark of a regressed turn (as the server's lens titles write it). */
export const REGRESSED = "⇣ regressed";

/** A case's description: its turn count and, against the baseline, how many regressed. */
export function caseDescription(turns: number, regressions = 0, simulated = false): string | undefined {
  const parts = [];
  if (turns > 1) parts.push(`${turns} turns`);
  if (simulated) parts.push(turns > 0 ? "+ simulated user" : "simulated user");
  if (regressions > 0) parts.push(turns > 1 ? `⇣ ${regressions} regressed` : REGRESSED);
  return parts.length > 0 ? parts.join(" · ") : undefined;
}

/** Fill `file`'s children from `discovery` (null: the document has no tests right now). */
export function syncFileItem<I extends TestItemLike<R>, R>(
  factory: TreeFactory<I, R>,
  file: I,
  discovery: Discovery | null,
): void {
  file.canResolveChildren = false;
  const cases = factory.children(file);
  if (discovery === null) {
    cases.replace([]);
    file.range = undefined;
    return;
  }
  const uri = discovery.uri;
  file.range = factory.toRange(discovery.range);
  cases.replace(
    discovery.cases.map((found) => {
      const item = reuse(factory, cases, caseId(uri, found.index), caseLabel(found.index, found.name), uri);
      item.range = factory.toRange(found.range);
      const simulated = found.simulatedRange ?? null;
      item.description = caseDescription(found.turns.length, found.regressions ?? 0, simulated !== null);
      const turns = factory.children(item);
      const scripted = found.turns.map((turn) => {
        const child = reuse(factory, turns, turnId(uri, found.index, turn.index), turnLabel(turn.index, turn.input), uri);
        child.range = factory.toRange(turn.range);
        child.description = turn.regressed === true ? REGRESSED : undefined;
        return child;
      });
      turns.replace([...scripted, ...keptGenerated(factory, turns, simulated)]);
      return item;
    }),
  );
  if (discovery.agentUri !== uri) {
    file.description = `cases of ${discovery.agentUri.split("/").pop() ?? discovery.agentUri}`;
  }
}

/** The generated items of a case still simulated (none once it is not: they go). */
function keptGenerated<I extends TestItemLike<R>, R>(
  factory: TreeFactory<I, R>,
  turns: ItemCollectionLike<I>,
  simulated: LspRange | null,
): I[] {
  const kept: I[] = [];
  if (simulated === null) return kept;
  turns.forEach((child) => {
    if (parseTestId(child.id).kind !== "generated") return;
    child.range = factory.toRange(simulated);
    kept.push(child);
  });
  return kept;
}

function reuse<I extends TestItemLike<R>, R>(
  factory: TreeFactory<I, R>,
  collection: ItemCollectionLike<I>,
  id: string,
  label: string,
  uri: string,
): I {
  const existing = collection.get(id);
  if (existing !== undefined) {
    existing.label = label; // a renamed case keeps its id (ids are by index)
    return existing;
  }
  return factory.createItem(id, label, uri);
}
