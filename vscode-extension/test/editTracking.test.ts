import assert from "node:assert/strict";
import { test } from "node:test";
import { invalidateEditedTurns, turnsTouchedBy } from "../src/editTracking";
import { GutterState } from "../src/gutterState";
import { statusText } from "../src/statusText";
import { turnId } from "../src/testIds";
import { discovery, multiTurn, range, singleTurn, turn, URI } from "./fixtures";
import { StubController, StubTestItem } from "./vscode-stub";

test("an edit inside a turn's range touches only that turn", () => {
  assert.deepEqual(turnsTouchedBy(discovery(), [range(15, 15, 12, 10)]).map((t) => t.id), [turnId(URI, 1, 1)]);
  assert.deepEqual(turnsTouchedBy(discovery(), [range(3, 3, 2)]), [], "an edit above the tests touches none");
  // Replacing lines 9-14 spans the single-turn case and case 1's turn 0.
  assert.deepEqual(turnsTouchedBy(discovery(), [range(9, 14, 0)]).map((t) => t.id), [turnId(URI, 0, 0), turnId(URI, 1, 0)]);
  assert.deepEqual(turnsTouchedBy(undefined, [range(9, 9)]), []);
});

test("edited turns are marked outdated through invalidateTestResults", () => {
  const controller = new StubController();
  const items = new Map([[turnId(URI, 1, 1), new StubTestItem(turnId(URI, 1, 1), "turn 1", URI)]]);
  const marked = invalidateEditedTurns(controller, discovery(), [range(16, 16, 5, 2)], (id) => items.get(id));
  assert.deepEqual(marked.map((i) => i.id), [turnId(URI, 1, 1)]);
  assert.deepEqual(controller.invalidated, [[turnId(URI, 1, 1)]]);
  invalidateEditedTurns(controller, discovery(), [range(2, 2)], (id) => items.get(id));
  assert.equal(controller.invalidated.length, 1, "nothing to invalidate: no call");
});

test("gutter marks: placed at each turn's input line, cleared by edits there", () => {
  const gutter = new GutterState();
  gutter.record({ uri: URI, caseIndex: 0, turn: null, regraded: false, result: singleTurn(0, { passed: false }) });
  gutter.record({
    uri: URI,
    caseIndex: 1,
    turn: null,
    regraded: true,
    result: multiTurn(1, [turn({ turn_index: 0 }), turn({ turn_index: 1, passed: false, skipped: true })]),
  });
  const lines = (kind: "passed" | "failed" | "skipped") => gutter.ranges(discovery())[kind].map((r) => r.start.line);
  assert.deepEqual([lines("passed"), lines("failed"), lines("skipped")], [[13], [9], [15]]);
  assert.equal(gutter.edited(URI, discovery(), [range(13, 13, 3)]), true);
  assert.deepEqual(lines("passed"), []);
  assert.equal(gutter.edited(URI, discovery(), [range(1, 1)]), false);
  gutter.clear(URI);
  assert.deepEqual(gutter.ranges(discovery()), { passed: [], failed: [], skipped: [] });
});

test("status bar text: state, trust and last run summary", () => {
  const idle = statusText("running", false, undefined);
  assert.equal(idle.text, "$(beaker) HoloDeck");
  assert.match(idle.tooltip, /Untrusted workspace: runs disabled/);
  const after = statusText("running", true, { label: "agent.yaml", passed: 3, failed: 1, status: "done" });
  assert.equal(after.text, "$(beaker) HoloDeck $(error) 3/4");
  assert.match(after.tooltip, /Last run \(agent.yaml\): 3 passed, 1 failed/);
  assert.equal(statusText("notFound", true, undefined).text, "$(warning) HoloDeck: holodeck-lsp not found");
  assert.match(statusText("running", true, { label: "a", passed: 0, failed: 0, status: "refused", reason: "busy" }).tooltip, /refused: busy/);
});
