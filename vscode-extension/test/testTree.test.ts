import assert from "node:assert/strict";
import { test } from "node:test";
import { caseId, fileId, parseTestId, turnId } from "../src/testIds";
import { caseDescription, syncFileItem, TURN_INPUT_LIMIT } from "../src/testTree";
import { discovery, URI } from "./fixtures";
import { StubRange, StubTestItem, stubFactory } from "./vscode-stub";

test("test ids round-trip through parseTestId", () => {
  assert.deepEqual(parseTestId(fileId(URI)), { kind: "file", uri: URI });
  assert.deepEqual(parseTestId(caseId(URI, 3)), { kind: "case", uri: URI, caseIndex: 3 });
  assert.deepEqual(parseTestId(turnId(URI, 3, 12)), { kind: "turn", uri: URI, caseIndex: 3, turnIndex: 12 });
  // A URI that merely contains "case" is still a file.
  assert.deepEqual(parseTestId("file:///case:1/agent.yaml"), { kind: "file", uri: "file:///case:1/agent.yaml" });
});

test("discovery builds file -> cases -> turns with labels and ranges", () => {
  const factory = stubFactory();
  const file = new StubTestItem(fileId(URI), "agent.yaml", URI);
  file.canResolveChildren = true;
  syncFileItem(factory, file, discovery());
  assert.equal(file.canResolveChildren, false);
  assert.deepEqual(file.range, new StubRange(7, 0, 7, 11));
  const cases = file.children.all();
  assert.deepEqual(cases.map((c) => [c.id, c.label, c.description]), [
    [caseId(URI, 0), "single", undefined],
    [caseId(URI, 1), "test_cases[1]", "2 turns"],
  ]);
  assert.deepEqual(cases[0]?.range, new StubRange(8, 0, 10, 20));
  const turns = cases[1]?.children.all() ?? [];
  assert.deepEqual(turns.map((t) => [t.id, t.label]), [
    // Labelled with the input, on one line, cut at TURN_INPUT_LIMIT (40) characters.
    [turnId(URI, 1, 0), "turn 0: What is 206588 minus 181001, and why?"],
    [turnId(URI, 1, 1), "turn 1: And then subtract 85 from the result yo…"],
  ]);
  assert.equal(turns[1]?.label.length, "turn 1: ".length + TURN_INPUT_LIMIT);
  assert.equal(cases[0]?.children.all()[0]?.label, "turn 0", "no input known: the index alone");
  assert.deepEqual(turns[1]?.range, new StubRange(15, 0, 16, 30));
  assert.equal(cases[0]?.children.size, 1, "a single-turn case has its one turn 0");
});

test("a second discovery reuses items (VS Code keeps their state) and moves ranges", () => {
  const factory = stubFactory();
  const file = new StubTestItem(fileId(URI), "agent.yaml", URI);
  syncFileItem(factory, file, discovery());
  const before = file.children.get(caseId(URI, 1));
  const createdBefore = factory.created.length;
  const moved = discovery();
  moved.cases[1]!.range = { start: { line: 20, character: 0 }, end: { line: 25, character: 0 } };
  moved.cases[1]!.name = "renamed";
  moved.cases.splice(0, 1);
  syncFileItem(factory, file, moved);
  assert.equal(factory.created.length, createdBefore, "no new items");
  assert.equal(file.children.get(caseId(URI, 1)), before);
  assert.equal(before?.label, "renamed");
  assert.deepEqual(before?.range, new StubRange(20, 0, 25, 0));
  assert.equal(file.children.get(caseId(URI, 0)), undefined, "a removed case goes");
});

test("null discovery empties the file; an include says whose cases it holds", () => {
  const factory = stubFactory();
  const file = new StubTestItem(fileId(URI), "agent.yaml", URI);
  syncFileItem(factory, file, discovery());
  syncFileItem(factory, file, null);
  assert.equal(file.children.size, 0);
  const include = "file:///project/suite/cases.yaml";
  const found = { ...discovery(include), agentUri: URI };
  const item = new StubTestItem(fileId(include), "cases.yaml", include);
  syncFileItem(factory, item, found);
  assert.equal(item.description, "cases of agent.yaml");
  assert.ok(item.children.get(caseId(include, 1))?.children.get(turnId(include, 1, 1)));
});

test("turns that regressed against the baseline are marked in their description", () => {
  const factory = stubFactory();
  const file = new StubTestItem(fileId(URI), "agent.yaml", URI);
  const found = discovery();
  const multi = found.cases[1];
  assert.ok(multi !== undefined && multi.turns[1] !== undefined);
  multi.regressions = 1;
  multi.turns[1].regressed = true;
  found.baseline = "v1";
  syncFileItem(factory, file, found);
  const cases = file.children.all();
  assert.deepEqual(cases.map((c) => c.description), [undefined, "2 turns · ⇣ 1 regressed"]);
  const turns = cases[1]?.children.all() ?? [];
  assert.deepEqual(turns.map((t) => t.description), [undefined, "⇣ regressed"]);
  // The next discovery without the regression clears the mark (items are reused).
  syncFileItem(factory, file, discovery());
  assert.equal(file.children.all()[1]?.children.all()[1]?.description, undefined);
  assert.equal(file.children.all()[1]?.description, "2 turns");
});

test("a single-turn case that regressed says so without a count", () => {
  assert.equal(caseDescription(1, 1), "⇣ regressed");
  assert.equal(caseDescription(1, 0), undefined);
  assert.equal(caseDescription(3, 2), "3 turns · ⇣ 2 regressed");
});
