// A simulated conversation's items in the Testing view (docs/simulated-users.md "In the
// editor"): the turns the simulated user generated, the at_end checks over the whole
// conversation and the simulated user's own failure are written nowhere in the file, so the
// case's item gains a child for each from the run's result, with its state and messages
// (resultMessages.ts, as a scripted turn gets them). A simulator failure is its own item,
// errored with the simulator's reason: never a failed agent turn.
import type { LspRange, TestResultJson, TurnResultJson } from "./protocol";
import { caseOutcomes, turnOutcome, type TurnOutcome } from "./resultMessages";
import { generatedId, parseTestId, type TestRef } from "./testIds";
import { turnLabel, type TestItemLike, type TreeFactory } from "./testTree";

export interface GeneratedOutcome {
  /** The item's id suffix: `turn:3`, `at_end`, `simulator` (testIds.generatedId). */
  part: string;
  label: string;
  outcome: TurnOutcome;
}

/** The Testing view's generated items, as a run session changes them. */
export interface GeneratedItems {
  /** Drop the generated items under `ref` (a file, a case): a new run replaces them. */
  clear(ref: TestRef): void;
  /** The case's generated items are these now (`part`: their id suffix, testIds.ts). */
  replace(uri: string, caseIndex: number, items: ReadonlyArray<{ part: string; label: string }>): void;
}

/** Generated items as children of the case items `find` finds, pointing at `simulatedRange`
 *  (the case's `simulated_user` key; else the case's range). */
export function generatedItems<I extends TestItemLike<R>, R>(
  factory: TreeFactory<I, R>,
  find: (ref: TestRef) => I | undefined,
  simulatedRange: (uri: string, caseIndex: number) => LspRange | null | undefined,
): GeneratedItems {
  const clearCase = (item: I): void => {
    const children = factory.children(item);
    const dropped: string[] = [];
    children.forEach((child) => {
      if (parseTestId(child.id).kind === "generated") dropped.push(child.id);
    });
    for (const id of dropped) children.delete(id);
  };
  return {
    clear(ref) {
      if (ref.kind === "file") {
        const file = find(ref);
        if (file !== undefined) factory.children(file).forEach(clearCase);
      } else if (ref.kind === "case") {
        const found = find(ref);
        if (found !== undefined) clearCase(found);
      }
    },
    replace(uri, caseIndex, items) {
      const parent = find({ kind: "case", uri, caseIndex });
      if (parent === undefined) return;
      clearCase(parent);
      const where = simulatedRange(uri, caseIndex);
      items.forEach(({ part, label }, position) => {
        const item = factory.createItem(generatedId(uri, caseIndex, part), label, uri);
        item.range = where ? factory.toRange(where) : parent.range;
        // After the scripted turns, in conversation order (they share one range).
        item.sortText = `~${String(position).padStart(4, "0")}`;
        factory.children(parent).add(item);
      });
    },
  };
}

/** A turn whose input the simulated user wrote (live, or recorded on a replay). */
export function isGenerated(turn: TurnResultJson): boolean {
  return turn.user_source === "simulated" || turn.user_source === "recorded";
}

/** `turn 3 (simulated): Order W2378156, what is…` — the user's message, cut as a turn's input. */
export function generatedLabel(turn: TurnResultJson): string {
  const label = turnLabel(turn.turn_index, turn.input);
  const source = `turn ${turn.turn_index} (${turn.user_source ?? "simulated"})`;
  return `${source}${label.slice(`turn ${turn.turn_index}`.length)}`;
}

/** The items a simulated case's result gives its case (none for a scripted case). */
export function generatedOutcomes(result: TestResultJson): GeneratedOutcome[] {
  const simulation = result.simulation;
  if (!simulation) return [];
  const items: GeneratedOutcome[] = (result.turns ?? []).filter(isGenerated).map((turn) => ({
    part: `turn:${turn.turn_index}`,
    label: generatedLabel(turn),
    outcome: turnOutcome(turn),
  }));
  const atEnd = simulation.at_end;
  if (atEnd !== null && atEnd !== undefined) {
    const outcome = turnOutcome(atEnd);
    const bare = `turn ${atEnd.turn_index} failed`; // failureMessages' words when nothing says why
    outcome.messages = outcome.messages.map((m) => (m.text === bare ? { kind: "text", text: "the at_end checks failed" } : m));
    items.push({ part: "at_end", label: "at end (whole conversation)", outcome: { ...outcome, turnIndex: -1 } });
  }
  // Set even when an agent turn failed first (the case is then the agent's failure, not
  // `simulator_failed`): the simulator's own failure is still reported, as its own.
  if (simulation.failure) {
    const text =
      `the simulated user failed (${simulation.failure}): ${simulation.failure_detail ?? ""} — ` +
      `the simulator's failure, not the agent's${result.simulator_failed ? ": no verdict on the agent" : ""}`;
    items.push({
      part: "simulator",
      label: `simulated user: ${simulation.failure}`,
      outcome: { turnIndex: -1, state: "errored", messages: [{ kind: "text", text }], durationMs: undefined },
    });
  }
  return items;
}

/** Passed and failed (errored included, skipped not) items of a case's result, as the
 *  Testing view gives them states: every turn (scripted and generated), plus the at_end and
 *  simulated-user items. The status bar counts the same, so the two never disagree. */
export function itemCounts(result: TestResultJson): { passed: number; failed: number } {
  const extra = generatedOutcomes(result).filter((item) => !item.part.startsWith("turn:"));
  const outcomes = [...caseOutcomes(result), ...extra.map((item) => item.outcome)];
  return {
    passed: outcomes.filter((o) => o.state === "passed").length,
    failed: outcomes.filter((o) => o.state === "failed" || o.state === "errored").length,
  };
}
