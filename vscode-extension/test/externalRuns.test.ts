import assert from "node:assert/strict";
import { test } from "node:test";
import { externalResult, OwnRuns } from "../src/externalRuns";
import { caseId, turnId } from "../src/testIds";
import { metric, multiTurn, stubSession, turn, URI } from "./fixtures";

test("a 'Run turn' lens result marks that turn only, with the same message a Testing run gives", () => {
  const failing = turn({
    turn_index: 1,
    passed: false,
    response: "99.99",
    ground_truth: "25.14",
    metric_results: [metric({ passed: false, score: 0 })],
  });
  const { step, response, name } = externalResult({ uri: URI, caseIndex: 1, turn: 1, regraded: false, result: multiTurn(1, [failing]) });
  assert.equal(step.ref.kind, "turn");
  assert.equal(name, "HoloDeck: run from the editor");
  const { run, session: s } = stubSession();
  s.begin(step);
  assert.deepEqual(s.finish(step, response), { status: "done", passed: 0, failed: 1 });
  assert.deepEqual(
    run.events.map((e) => [e.event, e.id]),
    [["started", turnId(URI, 1, 1)], ["failed", turnId(URI, 1, 1)]],
  );
  const failed = run.events.find((e) => e.event === "failed");
  assert.ok(failed && failed.event === "failed");
  assert.deepEqual(failed.messages[0], { kind: "diff", text: "numeric 0.00: the response does not match ground_truth", expected: "25.14", actual: "99.99" });
});

test("a 'Run case' lens result or a re-grade marks every turn (the case shows their state)", () => {
  const result = multiTurn(1, [turn({ turn_index: 0 }), turn({ turn_index: 1 })]);
  const { step, response, name } = externalResult({ uri: URI, caseIndex: 1, turn: null, regraded: true, result });
  assert.equal(name, "HoloDeck: re-graded from transcript");
  const { run, session: s } = stubSession();
  s.begin(step);
  s.finish(step, response);
  assert.equal(run.stateOf(turnId(URI, 1, 0)), "passed");
  assert.equal(run.stateOf(turnId(URI, 1, 1)), "passed");
  assert.equal(run.stateOf(caseId(URI, 1)), undefined);
});

test("OwnRuns counts overlapping Testing-view runs per document", () => {
  const own = new OwnRuns();
  own.enter(URI);
  own.enter(URI);
  own.leave(URI);
  assert.equal(own.has(URI), true);
  own.leave(URI);
  assert.equal(own.has(URI), false);
  own.leave(URI); // an unbalanced leave never goes negative
  own.enter(URI);
  assert.equal(own.has(URI), true);
});
