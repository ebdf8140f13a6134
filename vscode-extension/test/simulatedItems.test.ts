// A simulated case in the Testing view: its generated turns, at_end checks and simulator
// failure become items of their own under the case, with the states and messages a scripted
// turn gets; a new run replaces them; the tree keeps them only while the case is simulated.
import assert from "node:assert/strict";
import { test } from "node:test";
import type { Discovery, RunResponse, TestResultJson } from "../src/protocol";
import { planRun, stepFor } from "../src/runPlan";
import { RunSession } from "../src/runSession";
import { generatedItems, generatedLabel, itemCounts } from "../src/simulatedItems";
import { caseId, fileId, generatedId, idOf, parseTestId, turnId, type TestRef } from "../src/testIds";
import { syncFileItem } from "../src/testTree";
import { metric, multiTurn, range, stubLookup, turn, URI } from "./fixtures";
import { StubRun, StubTestItem, stubFactory } from "./vscode-stub";

const SUMMARY = { total_tests: 1, passed: 1, failed: 0, pass_rate: 100 };
const SIMULATED_KEY = range(6, 6, 19, 4);

/** Case 0 "balance": one scripted turn, then a simulated user (its key on line 6). */
function simulatedDiscovery(simulated = true): Discovery {
  return {
    uri: URI,
    agentUri: URI,
    range: range(1, 1, 11),
    cases: [
      {
        index: 0,
        name: "balance",
        range: range(2, 9, 20),
        turns: [{ index: 0, range: range(3, 5, 20), inputRange: range(4, 4, 20, 8), input: "Hi, I need help." }],
        simulatedRange: simulated ? SIMULATED_KEY : null,
      },
    ],
  };
}

function simulatedResult(overrides: Partial<TestResultJson> = {}, generated = 2): TestResultJson {
  const turns = [turn({ turn_index: 0, input: "Hi, I need help.", user_source: "scripted" })];
  for (let index = 1; index <= generated; index++) {
    const failing = index === 2;
    turns.push(
      turn({
        turn_index: index,
        input: index === 1 ? "My order is W2378156. What is left to pay on it, please?" : "And the total?",
        user_source: "simulated",
        passed: !failing,
        metric_results: failing ? [metric({ metric_name: "contains", kind: "code", passed: false, score: 0, reasoning: "no $1,235" })] : [],
      }),
    );
  }
  return {
    ...multiTurn(0, turns, "balance"),
    simulation: {
      model: "anthropic:claude-haiku-4-5",
      fingerprint: "0123456789abcdef",
      simulated_turns: generated,
      stop_marker: "###STOP###",
      failure: null,
      failure_detail: null,
      at_end: turn({ turn_index: generated, input: "-", passed: true }),
    },
    ...overrides,
  };
}

function simulatedSession(discovery = simulatedDiscovery()) {
  const factory = stubFactory();
  const file = new StubTestItem(fileId(URI), "agent.yaml", URI);
  syncFileItem(factory, file, discovery);
  const { find, turnsUnder } = stubLookup(file);
  const generated = generatedItems(factory, find, () => discovery.cases[0]?.simulatedRange);
  const run = new StubRun();
  const children = (): StubTestItem[] => find({ kind: "case", uri: URI, caseIndex: 0 })?.children.all() ?? [];
  return { run, file, factory, children, session: new RunSession(run, { item: find, turnsUnder, generated }) };
}

function done(result: TestResultJson): RunResponse {
  return { status: "done", summary: SUMMARY, results: [result] };
}

test("a simulated case's generated turns and at_end checks become items with their own states", () => {
  const { run, session, children } = simulatedSession();
  const step = stepFor(parseTestId(caseId(URI, 0)));
  session.begin(step);
  const summary = session.finish(step, done(simulatedResult()));
  assert.deepEqual(
    children().map((item) => [item.id, item.label]),
    [
      [turnId(URI, 0, 0), "turn 0: Hi, I need help."],
      [generatedId(URI, 0, "turn:1"), "turn 1 (simulated): My order is W2378156. What is left to p…"],
      [generatedId(URI, 0, "turn:2"), "turn 2 (simulated): And the total?"],
      [generatedId(URI, 0, "at_end"), "at end (whole conversation)"],
    ],
  );
  assert.equal(run.stateOf(turnId(URI, 0, 0)), "passed");
  assert.equal(run.stateOf(generatedId(URI, 0, "turn:1")), "passed");
  assert.equal(run.stateOf(generatedId(URI, 0, "turn:2")), "failed");
  assert.equal(run.stateOf(generatedId(URI, 0, "at_end")), "passed");
  const failed = run.events.find((e) => e.event === "failed");
  assert.ok(failed?.event === "failed");
  assert.deepEqual(failed.messages, [{ kind: "text", text: "grader contains 0.00: no $1,235" }]);
  // The generated items point at the `simulated_user` key, in conversation order.
  const items = children().slice(1);
  assert.ok(items.every((item) => item.range?.startLine === 6));
  assert.deepEqual(items.map((item) => item.sortText), ["~0000", "~0001", "~0002"]);
  // "N/M tests passed" counts every item given a state; the status bar counts the same.
  const stated = new Set(run.events.filter((e) => ["passed", "failed", "errored"].includes(e.event)).map((e) => e.id));
  assert.equal(stated.size, 4);
  assert.deepEqual(summary, { status: "done", passed: 3, failed: 1 });
  assert.deepEqual(itemCounts(simulatedResult()), { passed: 3, failed: 1 });
  assert.equal(run.stateOf(caseId(URI, 0)), undefined, "the case has no state of its own");
});

test("the next run of the case replaces its generated items", () => {
  const { session, children } = simulatedSession();
  const step = stepFor(parseTestId(caseId(URI, 0)));
  session.begin(step);
  session.finish(step, done(simulatedResult()));
  assert.equal(children().length, 4);
  session.begin(step);
  assert.deepEqual(children().map((item) => item.id), [turnId(URI, 0, 0)], "cleared while the run runs");
  session.finish(step, done(simulatedResult({}, 1)));
  assert.deepEqual(
    children().map((item) => item.id),
    [turnId(URI, 0, 0), generatedId(URI, 0, "turn:1"), generatedId(URI, 0, "at_end")],
  );
  // A run of the whole file clears them too.
  session.begin(stepFor(parseTestId(fileId(URI))));
  assert.deepEqual(children().map((item) => item.id), [turnId(URI, 0, 0)]);
});

test("a simulator failure is the simulator's item, errored with its reason, not a failed agent turn", () => {
  const { run, session } = simulatedSession();
  const step = stepFor(parseTestId(caseId(URI, 0)));
  session.begin(step);
  const base = simulatedResult({}, 1);
  const result: TestResultJson = {
    ...base,
    passed: false,
    simulator_failed: true,
    simulation: { ...base.simulation!, stop_marker: null, at_end: null, failure: "never_stopped", failure_detail: "no stop marker after 1 message" },
  };
  const summary = session.finish(step, done(result));
  assert.equal(run.stateOf(generatedId(URI, 0, "turn:1")), "passed", "the agent's answer stays its own");
  assert.equal(run.stateOf(generatedId(URI, 0, "simulator")), "errored");
  const errored = run.events.find((e) => e.event === "errored");
  assert.ok(errored?.event === "errored");
  assert.match(errored.messages[0]?.text ?? "", /^the simulated user failed \(never_stopped\): no stop marker.*not the agent's/);
  assert.ok(!run.events.some((e) => e.event === "failed"));
  assert.deepEqual(summary, { status: "done", passed: 2, failed: 1 });
});

test("an agent turn that failed before the simulator did: both reported, each as its own", () => {
  const { run, session } = simulatedSession();
  const step = stepFor(parseTestId(caseId(URI, 0)));
  session.begin(step);
  const base = simulatedResult();
  // The case is the agent's failure (simulator_failed false), the simulator's failure stays its own.
  const result: TestResultJson = {
    ...base,
    passed: false,
    simulator_failed: false,
    simulation: { ...base.simulation!, stop_marker: null, at_end: null, failure: "never_stopped", failure_detail: "no stop marker" },
  };
  const summary = session.finish(step, done(result));
  assert.equal(run.stateOf(generatedId(URI, 0, "turn:2")), "failed");
  assert.equal(run.stateOf(generatedId(URI, 0, "simulator")), "errored");
  assert.deepEqual(summary, { status: "done", passed: 2, failed: 2 });
});

test("re-discovery keeps the generated items of a simulated case, drops them once it is not", () => {
  const { session, file, factory, children } = simulatedSession();
  const step = stepFor(parseTestId(caseId(URI, 0)));
  session.begin(step);
  session.finish(step, done(simulatedResult()));
  syncFileItem(factory, file, simulatedDiscovery());
  assert.equal(children().length, 4);
  syncFileItem(factory, file, simulatedDiscovery(false));
  assert.deepEqual(children().map((item) => item.id), [turnId(URI, 0, 0)]);
});

test("a generated item runs its whole case; excluding one excludes nothing", () => {
  const id = generatedId(URI, 0, "turn:2");
  assert.deepEqual(parseTestId(id), { kind: "generated", uri: URI, caseIndex: 0, part: "turn:2" });
  assert.equal(idOf(parseTestId(generatedId(URI, 3, "at_end"))), generatedId(URI, 3, "at_end"));
  const children = (): TestRef[] => [];
  assert.deepEqual(
    planRun([id, generatedId(URI, 0, "at_end")], [], children).map((s) => [s.command, s.args]),
    [["holodeck.runCase", [URI, 0]]],
  );
  assert.deepEqual(planRun([caseId(URI, 0)], [id], children).map((s) => s.command), ["holodeck.runCase"]);
});

test("a generated turn's label names who wrote it", () => {
  assert.equal(generatedLabel(turn({ turn_index: 4, input: "Thanks,\n  bye", user_source: "recorded" })), "turn 4 (recorded): Thanks, bye");
  assert.equal(generatedLabel(turn({ turn_index: 1, input: "", user_source: "simulated" })), "turn 1 (simulated)");
});
