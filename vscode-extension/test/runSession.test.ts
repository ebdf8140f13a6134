import assert from "node:assert/strict";
import { test } from "node:test";
import type { RunResponse } from "../src/protocol";
import { stepFor } from "../src/runPlan";
import { caseId, fileId, parseTestId, turnId } from "../src/testIds";
import { metric, multiTurn, singleTurn, stubSession, turn, URI } from "./fixtures";

const SUMMARY = { total_tests: 2, passed: 1, failed: 1, pass_rate: 50 };

test("runAll: turns started, then each turn and case reported from the results", () => {
  const { run, session } = stubSession();
  const step = stepFor(parseTestId(fileId(URI)));
  session.begin(step);
  assert.deepEqual(
    run.events.map((e) => [e.event, e.id]),
    [["started", turnId(URI, 0, 0)], ["started", turnId(URI, 1, 0)], ["started", turnId(URI, 1, 1)]],
  );
  const response: RunResponse = {
    status: "done",
    summary: SUMMARY,
    results: [
      singleTurn(0, { passed: false, agent_response: "5", ground_truth: "4", metric_results: [metric({ passed: false, score: 0 })] }),
      multiTurn(1, [turn({ turn_index: 0 }), turn({ turn_index: 1 })]),
    ],
  };
  const summary = session.finish(step, response);
  assert.deepEqual(summary, { status: "done", passed: 2, failed: 1 });
  assert.equal(run.stateOf(turnId(URI, 0, 0)), "failed");
  assert.equal(run.stateOf(turnId(URI, 1, 1)), "passed");
  // Cases get no state of their own (VS Code derives it from the turns), so the Testing
  // view counts the same turns as the summary: 2 passed of 3.
  assert.equal(run.stateOf(caseId(URI, 0)), undefined);
  assert.equal(run.stateOf(caseId(URI, 1)), undefined);
  const stated = new Set(run.events.filter((e) => ["passed", "failed", "errored"].includes(e.event)).map((e) => e.id));
  assert.equal(stated.size, summary.passed + summary.failed);
  assert.ok(run.events.some((e) => e.event === "output" && e.id === caseId(URI, 1) && e.text.includes("2/2 turns passed")));
  const failed = run.events.find((e) => e.event === "failed" && e.id === turnId(URI, 0, 0));
  assert.ok(failed && failed.event === "failed");
  assert.deepEqual(failed.messages[0], { kind: "diff", text: "numeric 0.00: the response does not match ground_truth", expected: "4", actual: "5" });
});

test("runTurn: only the graded turn is reported, the case item is left alone", () => {
  const { run, session } = stubSession();
  const step = stepFor(parseTestId(turnId(URI, 1, 1)));
  session.begin(step);
  session.finish(step, { status: "done", summary: SUMMARY, results: [multiTurn(1, [turn({ turn_index: 1, passed: false, errors: ["HTTP 500"] })])] });
  assert.deepEqual(
    run.events.map((e) => [e.event, e.id]),
    [["started", turnId(URI, 1, 1)], ["errored", turnId(URI, 1, 1)]],
  );
});

test("a refused run errors every covered turn with the server's reason", () => {
  const { run, session } = stubSession();
  const step = stepFor(parseTestId(caseId(URI, 1)));
  const summary = session.finish(step, { status: "refused", reason: "agent.yaml has 2 errors; fix them to run it" });
  assert.equal(summary.status, "refused");
  const errored = run.events.filter((e) => e.event === "errored");
  assert.deepEqual(errored.map((e) => e.id), [turnId(URI, 1, 0), turnId(URI, 1, 1)]);
  assert.ok(errored[0]?.event === "errored" && errored[0].messages[0]?.text.includes("2 errors"));
});

test("cancelled: turns without a result are skipped, cancelled turns too", () => {
  const { run, session } = stubSession();
  const step = stepFor(parseTestId(fileId(URI)));
  const summary = session.finish(step, {
    status: "cancelled",
    summary: SUMMARY,
    results: [multiTurn(1, [turn({ turn_index: 0 }), turn({ turn_index: 1, passed: false, skipped: true, errors: ["cancelled"] })])],
  });
  assert.equal(summary.status, "cancelled");
  assert.equal(run.stateOf(turnId(URI, 1, 0)), "passed");
  assert.equal(run.stateOf(turnId(URI, 1, 1)), "skipped");
  assert.equal(run.stateOf(turnId(URI, 0, 0)), "skipped", "case 0 never ran");
  assert.ok(run.events.some((e) => e.event === "output" && e.id === turnId(URI, 0, 0) && e.text.includes("cancelled")));
});

test("an answer that is not a run response errors the turns instead of throwing", () => {
  const { run, session } = stubSession();
  const step = stepFor(parseTestId(caseId(URI, 0)));
  assert.equal(session.finish(step, null).status, "invalid");
  assert.equal(run.stateOf(turnId(URI, 0, 0)), "errored");
});

test("refuse (untrusted) reports without asking the server", () => {
  const { run, session } = stubSession();
  const step = stepFor(parseTestId(turnId(URI, 0, 0)));
  session.refuse(step, "untrusted workspace");
  assert.equal(run.stateOf(turnId(URI, 0, 0)), "errored");
});
