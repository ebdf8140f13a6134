import assert from "node:assert/strict";
import { test } from "node:test";
import { caseOutcomes, caseSummary, conversationLines, turnCounts, turnOutcome, turnsOf } from "../src/resultMessages";
import { metric, multiTurn, singleTurn, turn } from "./fixtures";

test("a single-turn result is its one turn 0, from the case-level fields", () => {
  const turns = turnsOf(singleTurn(0, { passed: false, agent_response: "5", ground_truth: "4" }));
  assert.equal(turns.length, 1);
  assert.equal(turns[0]?.turn_index, 0);
  assert.equal(turns[0]?.response, "5");
  assert.equal(turns[0]?.ground_truth, "4");
});

test("a ground-truth failure is an expected/actual diff", () => {
  const outcome = turnOutcome(
    turn({
      passed: false,
      response: "25,587",
      ground_truth: "25587",
      metric_results: [metric({ metric_name: "equality", score: 0, threshold: 1, passed: false })],
    }),
  );
  assert.equal(outcome.state, "failed");
  assert.deepEqual(outcome.messages, [
    { kind: "diff", text: "equality 0.00 (threshold 1): the response does not match ground_truth", expected: "25587", actual: "25,587" },
  ]);
  assert.equal(outcome.durationMs, 1200);
});

test("tool assertions report their unmatched reason; code graders and judges their reasoning", () => {
  const outcome = turnOutcome(
    turn({
      passed: false,
      ground_truth: "4",
      tools_matched: false,
      arg_match_details: [
        { tool: "subtract", unmatched_reason: "arg 'b' mismatch: expected 3, got 4" },
        { tool: "add", unmatched_reason: null },
      ],
      metric_results: [
        metric({ metric_name: "grader", kind: "code", score: 0, passed: false, reasoning: "total is off by one" }),
        metric({ metric_name: "faithfulness", kind: "rag", score: 0.2, threshold: 0.7, passed: false, reasoning: "unsupported claim" }),
        metric({ metric_name: "numeric", passed: true }),
      ],
    }),
  );
  assert.equal(outcome.state, "failed");
  assert.deepEqual(
    outcome.messages.map((m) => [m.kind, m.text]),
    [
      ["text", "expected_tools subtract: arg 'b' mismatch: expected 3, got 4"],
      ["text", "grader grader 0.00: total is off by one"],
      ["text", "metric faithfulness 0.20 (threshold 0.7): unsupported claim"],
    ],
  );
});

test("a metric that failed to evaluate shows its error, not a diff", () => {
  const outcome = turnOutcome(turn({ passed: false, ground_truth: "x", metric_results: [metric({ passed: false, score: 0, error: "not a number: 'abc'" })] }));
  assert.deepEqual(outcome.messages, [{ kind: "text", text: "metric numeric 0.00: not a number: 'abc'" }]);
});

test("tools not matched without details, and a failure with nothing to say, still explain", () => {
  assert.deepEqual(turnOutcome(turn({ passed: false, tools_matched: false, tool_calls: ["add"] })).messages, [
    { kind: "text", text: "expected_tools not matched (called: add)" },
  ]);
  assert.deepEqual(turnOutcome(turn({ turn_index: 2, passed: false })).messages, [{ kind: "text", text: "turn 2 failed" }]);
});

test("errors make a turn errored; skips skipped (with the reason)", () => {
  const errored = turnOutcome(turn({ passed: false, errors: ["cassette is stale: turn 0 input differs"] }));
  assert.equal(errored.state, "errored");
  assert.deepEqual(errored.messages, [{ kind: "text", text: "cassette is stale: turn 0 input differs" }]);
  const skipped = turnOutcome(turn({ passed: false, skipped: true, errors: ["cancelled"], execution_time_ms: 0 }));
  assert.equal(skipped.state, "skipped");
  assert.equal(skipped.durationMs, undefined);
  assert.deepEqual(skipped.messages, [{ kind: "text", text: "cancelled" }]);
});

test("case outcomes and summary roll the turns up", () => {
  const result = multiTurn(1, [turn({ turn_index: 0 }), turn({ turn_index: 1, passed: false, errors: ["timeout"] })]);
  assert.deepEqual(caseOutcomes(result).map((o) => [o.turnIndex, o.state]), [[0, "passed"], [1, "errored"]]);
  assert.deepEqual(caseSummary(result), { state: "errored", text: "1/2 turns passed" });
  assert.equal(caseSummary(multiTurn(1, [turn({})])).state, "passed");
  assert.equal(caseSummary(multiTurn(1, [turn({ passed: false })])).state, "failed");
  assert.equal(caseSummary(multiTurn(1, [turn({ passed: false, skipped: true })])).state, "skipped");
});

test("turnCounts: the turns the status bar and the Testing view both count", () => {
  const result = multiTurn(1, [turn({ turn_index: 0 }), turn({ turn_index: 1, passed: false }), turn({ turn_index: 2, passed: false, skipped: true })]);
  assert.deepEqual(turnCounts({ ...result, passed: false }), { passed: 1, failed: 1 });
  assert.deepEqual(turnCounts(singleTurn(0, { passed: false, errors: ["HTTP 500"] })), { passed: 0, failed: 1 });
});

test("a simulated conversation: its generated turns in the case's output, its simulator's failure not a failure", () => {
  const simulation = {
    model: "anthropic:claude-haiku-4-5",
    fingerprint: "f".repeat(64),
    simulated_turns: 1,
    stop_marker: null,
    failure: "never_stopped",
    failure_detail: "no stop marker within max_turns (1 messages)",
  };
  const base = multiTurn(0, [
    turn({ turn_index: 0, input: "Hi", response: "Hello", user_source: "scripted" }),
    turn({ turn_index: 1, input: "Order W1?", response: "Found it", user_source: "simulated" }),
  ]);
  const result = { ...base, passed: false, simulator_failed: true, simulation };
  assert.deepEqual(conversationLines(result), [
    "simulated user anthropic:claude-haiku-4-5 (prompt ffffffffffff)",
    "turn 0 ✓ [scripted] user: Hi",
    "    agent: Hello",
    "turn 1 ✓ [simulated] user: Order W1?",
    "    agent: Found it",
  ]);
  const summary = caseSummary(result);
  assert.equal(summary.state, "errored");
  assert.match(summary.text, /the simulated user failed \(never_stopped\)/);
  assert.deepEqual(conversationLines(base), []);
});
