// TestResult JSON -> per-turn outcomes and the messages the Testing view shows. Plain data
// (no vscode.TestMessage here): testing.ts turns a MessageSpec into a TestMessage.
//
// Which message for which failure:
// - a failing metric that compares with ground truth (kind "standard": equality, numeric,
//   bleu, ...): an expected/actual diff of ground_truth vs the response;
// - a tool assertion: its unmatched_reason;
// - a code grader ("code") or an LLM-judged metric: its reasoning (or error);
// - errors (backend errors, stale cassette) make the turn errored, skips skipped.
import type { MetricResultJson, TestResultJson, TurnResultJson } from "./protocol";

export type MessageSpec =
  | { kind: "text"; text: string }
  | { kind: "diff"; text: string; expected: string; actual: string };

export type TurnState = "passed" | "failed" | "errored" | "skipped";

export interface TurnOutcome {
  turnIndex: number;
  state: TurnState;
  messages: MessageSpec[];
  durationMs: number | undefined;
}

/** The result's turns; a single-turn case (turns: null) as its one turn 0. */
export function turnsOf(result: TestResultJson): TurnResultJson[] {
  if (result.turns !== null && result.turns !== undefined) return result.turns;
  return [
    {
      turn_index: 0,
      input: result.test_input,
      response: result.agent_response,
      ground_truth: result.ground_truth,
      expected_tools: result.expected_tools ?? null,
      tool_calls: result.tool_calls ?? [],
      tools_matched: result.tools_matched,
      arg_match_details: result.arg_match_details,
      metric_results: result.metric_results ?? [],
      passed: result.passed,
      execution_time_ms: result.execution_time_ms,
      errors: result.errors ?? [],
      skipped: false,
    },
  ];
}

function score(metric: MetricResultJson): string {
  const value = Number.isFinite(metric.score) ? metric.score.toFixed(2) : String(metric.score);
  return metric.threshold === null || metric.threshold === undefined
    ? value
    : `${value} (threshold ${metric.threshold})`;
}

function metricMessage(metric: MetricResultJson, turn: TurnResultJson): MessageSpec {
  const why = metric.error ?? metric.reasoning;
  const head = `${metric.metric_name} ${score(metric)}`;
  if (metric.kind === "standard" && turn.ground_truth !== null && metric.error === null) {
    return {
      kind: "diff",
      text: `${head}: the response does not match ground_truth${why ? ` — ${why}` : ""}`,
      expected: turn.ground_truth,
      actual: turn.response ?? "",
    };
  }
  const label = metric.kind === "code" ? "grader" : "metric";
  return { kind: "text", text: `${label} ${head}${why ? `: ${why}` : " failed"}` };
}

function failureMessages(turn: TurnResultJson): MessageSpec[] {
  const messages: MessageSpec[] = [];
  for (const detail of turn.arg_match_details ?? []) {
    if (detail.unmatched_reason !== null && detail.unmatched_reason !== undefined) {
      messages.push({ kind: "text", text: `expected_tools ${detail.tool}: ${detail.unmatched_reason}` });
    }
  }
  if (turn.tools_matched === false && messages.length === 0) {
    const called = turn.tool_calls && turn.tool_calls.length > 0 ? turn.tool_calls.join(", ") : "none";
    messages.push({ kind: "text", text: `expected_tools not matched (called: ${called})` });
  }
  for (const metric of turn.metric_results ?? []) {
    if (metric.passed === false) messages.push(metricMessage(metric, turn));
  }
  if (messages.length === 0) messages.push({ kind: "text", text: `turn ${turn.turn_index} failed` });
  return messages;
}

export function turnOutcome(turn: TurnResultJson): TurnOutcome {
  const base = { turnIndex: turn.turn_index, durationMs: turn.execution_time_ms || undefined };
  const errors = turn.errors ?? [];
  if (turn.skipped) {
    return { ...base, state: "skipped", messages: errors.map((text) => ({ kind: "text", text })) };
  }
  if (errors.length > 0) {
    return { ...base, state: "errored", messages: errors.map((text) => ({ kind: "text", text })) };
  }
  if (turn.passed) return { ...base, state: "passed", messages: [] };
  return { ...base, state: "failed", messages: failureMessages(turn) };
}

/** A simulated conversation as the case's output shows it, a transcript beside the items its
 *  generated turns get (simulatedItems.ts): who wrote each message, and the agent's answers. */
export function conversationLines(result: TestResultJson): string[] {
  const simulation = result.simulation;
  if (!simulation) return [];
  const lines = [`simulated user ${simulation.model} (prompt ${simulation.fingerprint.slice(0, 12)})`];
  for (const turn of result.turns ?? []) {
    const mark = turn.skipped ? "–" : turn.passed ? "✓" : "✗";
    lines.push(`turn ${turn.turn_index} ${mark} [${turn.user_source ?? "scripted"}] user: ${turn.input}`);
    lines.push(`    agent: ${turn.response ?? "(no response)"}`);
  }
  if (simulation.stop_marker) lines.push(`ended: ${simulation.stop_marker}`);
  if (simulation.diverged_at_turn !== undefined && simulation.diverged_at_turn !== null) {
    lines.push(`diverged from the recording at turn ${simulation.diverged_at_turn}: ${simulation.divergence ?? ""}`);
  }
  return lines;
}

export function caseOutcomes(result: TestResultJson): TurnOutcome[] {
  return turnsOf(result).map(turnOutcome);
}

/** Passed and failed (errored included, skipped not) turns of a result: what the status bar
 *  and the Testing view both count. */
export function turnCounts(result: TestResultJson): { passed: number; failed: number } {
  const outcomes = caseOutcomes(result);
  const passed = outcomes.filter((o) => o.state === "passed").length;
  const failed = outcomes.filter((o) => o.state === "failed" || o.state === "errored").length;
  return { passed, failed };
}

/** A one-line verdict for the case item itself (whole-case runs only). */
export function caseSummary(result: TestResultJson): { state: TurnState; text: string } {
  const outcomes = caseOutcomes(result);
  const passed = outcomes.filter((o) => o.state === "passed").length;
  const text = `${passed}/${outcomes.length} turns passed`;
  const simulation = result.simulation;
  if (result.simulator_failed && simulation) {
    // The simulated user's failure, not the agent's: no verdict (docs/simulated-users.md).
    return { state: "errored", text: `${text}; the simulated user failed (${simulation.failure}): ${simulation.failure_detail ?? ""}` };
  }
  if (outcomes.length > 0 && outcomes.every((o) => o.state === "skipped")) return { state: "skipped", text };
  if (result.passed) return { state: "passed", text };
  if (outcomes.some((o) => o.state === "errored")) return { state: "errored", text };
  return { state: "failed", text };
}
