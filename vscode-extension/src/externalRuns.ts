// Runs the Testing view did not start — a "Run case" / "Run turn" code lens, the command
// palette, the ↻ Re-grade lens — still belong in the Testing view: each
// `holodeck/runResult` for such a run becomes a small test run of its own, reported through
// the same RunSession as the Testing view's runs (same messages, diffs and states). The
// server's quiet re-grades while the file is edited do not (extension.ts: runResult).
import type { RunResponse, RunResultParams } from "./protocol";
import { stepFor, type RunStep } from "./runPlan";
import type { TestRef } from "./testIds";

export interface ExternalResult {
  step: RunStep;
  response: RunResponse;
  /** The test run's name in the Test Results view. */
  name: string;
}

/** The run step and server answer a Testing-view run of the same item would have had. */
export function externalResult(params: RunResultParams): ExternalResult {
  const ref: TestRef =
    params.turn === null
      ? { kind: "case", uri: params.uri, caseIndex: params.caseIndex }
      : { kind: "turn", uri: params.uri, caseIndex: params.caseIndex, turnIndex: params.turn };
  const passed = params.result.passed ? 1 : 0;
  return {
    step: stepFor(ref),
    response: {
      status: "done",
      summary: { total_tests: 1, passed, failed: 1 - passed, pass_rate: passed },
      results: [params.result],
    },
    name: params.regraded ? "HoloDeck: re-graded from transcript" : "HoloDeck: run from the editor",
  };
}

/** Which documents have a Testing-view run in flight: their results arrive through that run. */
export class OwnRuns {
  private readonly counts = new Map<string, number>();

  enter(uri: string): void {
    this.counts.set(uri, (this.counts.get(uri) ?? 0) + 1);
  }

  leave(uri: string): void {
    const left = (this.counts.get(uri) ?? 1) - 1;
    if (left > 0) this.counts.set(uri, left);
    else this.counts.delete(uri);
  }

  has(uri: string): boolean {
    return this.counts.has(uri);
  }
}
