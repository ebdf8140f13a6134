// Reports one Testing-view run into a TestRun-like sink: marks the covered turns started,
// then maps each server answer (RunResponse) onto the items. Generic over the item type so
// the unit tests can drive it with plain objects. A simulated case's result also gives its
// case item the generated items (simulatedItems.ts), replacing those of its last run.
import { isRunResponse, type TestResultJson } from "./protocol";
import {
  caseOutcomes,
  caseSummary,
  conversationLines,
  type MessageSpec,
  type TurnOutcome,
} from "./resultMessages";
import type { RunStep } from "./runPlan";
import { covers } from "./runPlan";
import { generatedOutcomes, isGenerated, type GeneratedItems } from "./simulatedItems";
import type { TestRef } from "./testIds";

export interface RunSink<I> {
  started(item: I): void;
  passed(item: I, durationMs?: number): void;
  failed(item: I, messages: MessageSpec[], durationMs?: number): void;
  errored(item: I, messages: MessageSpec[], durationMs?: number): void;
  skipped(item: I): void;
  output(text: string, item?: I): void;
}

export interface ItemLookup<I> {
  item(ref: TestRef): I | undefined;
  /** The turn refs under `ref` (a turn: itself), from the current tree. */
  turnsUnder(ref: TestRef): TestRef[];
  /** A simulated case's generated items (the tree's own children are the scripted turns). */
  generated?: GeneratedItems;
}

export interface StepSummary {
  status: "done" | "cancelled" | "refused" | "invalid";
  passed: number;
  failed: number;
  reason?: string;
}

function key(ref: TestRef): string {
  return ref.kind === "turn" ? `${ref.caseIndex}/${ref.turnIndex}` : "";
}

export class RunSession<I> {
  constructor(
    private readonly sink: RunSink<I>,
    private readonly lookup: ItemLookup<I>,
  ) {}

  begin(step: RunStep): void {
    if (step.ref.kind !== "turn") this.lookup.generated?.clear(step.ref);
    for (const ref of this.lookup.turnsUnder(step.ref)) {
      const item = this.lookup.item(ref);
      if (item !== undefined) this.sink.started(item);
    }
  }

  /** Refuse a step without asking the server (untrusted workspace, no server). */
  refuse(step: RunStep, reason: string): StepSummary {
    return this.finish(step, { status: "refused", reason });
  }

  finish(step: RunStep, response: unknown): StepSummary {
    const turns = this.lookup.turnsUnder(step.ref);
    if (!isRunResponse(response)) {
      this.erroredAll(turns, "holodeck-lsp gave no run result (see the HoloDeck output channel)");
      return { status: "invalid", passed: 0, failed: 0 };
    }
    if (response.status === "refused") {
      // Not a test failure: the run could not start (untrusted, busy, errors in the file...).
      this.erroredAll(turns, `not run: ${response.reason}`);
      return { status: "refused", passed: 0, failed: 0, reason: response.reason };
    }
    const reported = new Set<string>();
    let passed = 0;
    let failed = 0;
    response.results.forEach((result, position) => {
      const caseIndex = result.test_index ?? this.caseIndexByPosition(step, position);
      if (caseIndex === undefined) return;
      const generated = new Set((result.simulation ? result.turns ?? [] : []).filter(isGenerated).map((t) => t.turn_index));
      for (const outcome of caseOutcomes(result)) {
        if (generated.has(outcome.turnIndex)) continue; // reported on its generated item below
        const ref: TestRef = { kind: "turn", uri: step.ref.uri, caseIndex, turnIndex: outcome.turnIndex };
        if (!covers(step.ref, ref)) continue; // context turns of a runTurn are not graded
        reported.add(key(ref));
        this.report(ref, outcome);
        if (outcome.state === "passed") passed++;
        else if (outcome.state !== "skipped") failed++;
      }
      if (step.ref.kind === "turn") return;
      const counted = this.reportGenerated(step.ref.uri, caseIndex, result);
      passed += counted.passed;
      failed += counted.failed;
      this.reportCase(step.ref.uri, caseIndex, result);
    });
    const why = response.status === "cancelled" ? "cancelled" : "no result for this turn";
    for (const ref of turns) {
      if (reported.has(key(ref))) continue;
      const item = this.lookup.item(ref);
      if (item === undefined) continue;
      this.sink.output(`not run: ${why}\r\n`, item);
      this.sink.skipped(item);
    }
    return { status: response.status, passed, failed };
  }

  private caseIndexByPosition(step: RunStep, position: number): number | undefined {
    // Only a single-case step can place a result without its test_index.
    if (step.ref.kind === "case" || step.ref.kind === "turn") return position === 0 ? step.ref.caseIndex : undefined;
    return undefined;
  }

  /** The case's generated items, replaced by this result's, each given its state. */
  private reportGenerated(uri: string, caseIndex: number, result: TestResultJson): { passed: number; failed: number } {
    const items = generatedOutcomes(result);
    const counted = { passed: 0, failed: 0 };
    this.lookup.generated?.replace(uri, caseIndex, items);
    for (const { part, outcome } of items) {
      const ref: TestRef = { kind: "generated", uri, caseIndex, part };
      const item = this.lookup.item(ref);
      if (item !== undefined) this.sink.started(item); // new: as begin() started the scripted turns
      this.report(ref, outcome);
      if (outcome.state === "passed") counted.passed++;
      else if (outcome.state !== "skipped") counted.failed++;
    }
    return counted;
  }

  private report(ref: TestRef, outcome: TurnOutcome): void {
    const item = this.lookup.item(ref);
    if (item === undefined) return;
    switch (outcome.state) {
      case "passed":
        this.sink.passed(item, outcome.durationMs);
        return;
      case "failed":
        this.sink.failed(item, outcome.messages, outcome.durationMs);
        return;
      case "errored":
        this.sink.errored(item, outcome.messages, outcome.durationMs);
        return;
      case "skipped":
        // TestRun.skipped takes no message: the reason goes to the item's output.
        for (const message of outcome.messages) this.sink.output(`skipped: ${message.text}\r\n`, item);
        this.sink.skipped(item);
        return;
    }
  }

  // The case item gets no state of its own: VS Code shows a parent with its children's state,
  // and counts every item given a state in "N/M tests passed" — a case state too made a run
  // of one two-turn case read 1/3 there while the status bar (turns) read 1/2. Its one-line
  // verdict goes to the case's output instead. Its generated items (a simulated case) are
  // counted in the status bar as the Testing view counts them: one each (itemCounts).
  private reportCase(uri: string, caseIndex: number, result: TestResultJson): void {
    const item = this.lookup.item({ kind: "case", uri, caseIndex });
    if (item === undefined) return;
    this.sink.output(`${caseSummary(result).text}\r\n`, item);
    // The whole simulated conversation, as a transcript, beside its items.
    for (const line of conversationLines(result)) this.sink.output(`${line}\r\n`, item);
  }

  private erroredAll(turns: TestRef[], text: string): void {
    for (const ref of turns) {
      const item = this.lookup.item(ref);
      if (item !== undefined) this.sink.errored(item, [{ kind: "text", text }]);
    }
  }
}
