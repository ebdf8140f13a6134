import assert from "node:assert/strict";
import { test } from "node:test";
import { covers, planRun } from "../src/runPlan";
import { caseId, fileId, parseTestId, turnId, type TestRef } from "../src/testIds";
import { URI } from "./fixtures";

const OTHER = "file:///project/other.agent.yaml";

/** The tree of fixtures.discovery(): case 0 (turn 0), case 1 (turns 0, 1). */
function childrenOf(ref: TestRef): TestRef[] {
  if (ref.kind === "file") return [caseId(ref.uri, 0), caseId(ref.uri, 1)].map(parseTestId);
  if (ref.kind === "case") return (ref.caseIndex === 0 ? [0] : [0, 1]).map((t) => parseTestId(turnId(ref.uri, ref.caseIndex, t)));
  return [];
}

const commands = (steps: ReturnType<typeof planRun>) => steps.map((s) => [s.command, ...s.args]);

test("each item maps to the narrowest run command", () => {
  assert.deepEqual(commands(planRun([fileId(URI)], [], childrenOf)), [["holodeck.runAll", URI]]);
  assert.deepEqual(commands(planRun([caseId(URI, 1)], [], childrenOf)), [["holodeck.runCase", URI, 1]]);
  assert.deepEqual(commands(planRun([turnId(URI, 1, 1)], [], childrenOf)), [["holodeck.runTurn", URI, 1, 1]]);
});

test("items under an included ancestor are not run twice; files are ordered", () => {
  const steps = planRun([turnId(URI, 1, 0), fileId(OTHER), caseId(URI, 1), caseId(OTHER, 0), caseId(URI, 1)], [], childrenOf);
  // Sorted by URI: file:///project/other... before file:///project/suite/...
  assert.deepEqual(commands(steps), [
    ["holodeck.runAll", OTHER],
    ["holodeck.runCase", URI, 1],
  ]);
});

test("exclusions split an item into its remaining children", () => {
  assert.deepEqual(commands(planRun([fileId(URI)], [caseId(URI, 0)], childrenOf)), [["holodeck.runCase", URI, 1]]);
  assert.deepEqual(commands(planRun([fileId(URI)], [turnId(URI, 1, 0)], childrenOf)), [
    ["holodeck.runCase", URI, 0],
    ["holodeck.runTurn", URI, 1, 1],
  ]);
  assert.deepEqual(commands(planRun([caseId(URI, 1)], [caseId(URI, 1)], childrenOf)), []);
});

test("covers follows the tree and never crosses files", () => {
  assert.ok(covers(parseTestId(fileId(URI)), parseTestId(turnId(URI, 1, 1))));
  assert.ok(covers(parseTestId(caseId(URI, 1)), parseTestId(turnId(URI, 1, 1))));
  assert.ok(!covers(parseTestId(caseId(URI, 0)), parseTestId(turnId(URI, 1, 0))));
  assert.ok(!covers(parseTestId(turnId(URI, 1, 0)), parseTestId(caseId(URI, 1))));
  assert.ok(!covers(parseTestId(fileId(OTHER)), parseTestId(caseId(URI, 0))));
});
