// Server answers as holodeck-lsp sends them (shapes from holodeck_lsp/server/runs/test_discovery.py
// and holodeck_lsp/schema/results.py).
import type { Discovery, LspRange, MetricResultJson, TestResultJson, TurnResultJson } from "../src/protocol";
import { RunSession } from "../src/runSession";
import { caseId, fileId, idOf, parseTestId, type TestRef } from "../src/testIds";
import { syncFileItem } from "../src/testTree";
import { StubRun, StubTestItem, stubFactory } from "./vscode-stub";

export const URI = "file:///project/suite/agent.yaml";

export function range(startLine: number, endLine: number, endCharacter = 0, startCharacter = 0): LspRange {
  return { start: { line: startLine, character: startCharacter }, end: { line: endLine, character: endCharacter } };
}

/** Case 0 "single" (single-turn, lines 8-10); case 1 unnamed, two turns (lines 11-16). */
export function discovery(uri = URI): Discovery {
  return {
    uri,
    agentUri: uri,
    range: range(7, 7, 11),
    cases: [
      { index: 0, name: "single", range: range(8, 10, 20), turns: [{ index: 0, range: range(8, 10, 20), inputRange: range(9, 9, 20, 4) }] },
      {
        index: 1,
        name: null,
        range: range(11, 16, 30),
        turns: [
          { index: 0, range: range(13, 14, 30), inputRange: range(13, 13, 30, 8), input: "What is 206588 minus 181001, and why?" },
          { index: 1, range: range(15, 16, 30), inputRange: range(15, 15, 30, 8), input: "And then\n  subtract   85 from the result you got before" },
        ],
      },
    ],
  };
}

export function metric(overrides: Partial<MetricResultJson>): MetricResultJson {
  return { metric_name: "numeric", kind: "standard", score: 1, threshold: null, passed: true, skipped: false, error: null, reasoning: null, ...overrides };
}

export function turn(overrides: Partial<TurnResultJson>): TurnResultJson {
  return {
    turn_index: 0,
    input: "q",
    response: "a",
    ground_truth: null,
    tools_matched: null,
    arg_match_details: null,
    metric_results: [],
    passed: true,
    execution_time_ms: 1200,
    errors: [],
    skipped: false,
    ...overrides,
  };
}

export function multiTurn(index: number, turns: TurnResultJson[], name: string | null = null): TestResultJson {
  return {
    test_name: name,
    test_index: index,
    test_input: turns[0]?.input ?? "",
    agent_response: null,
    tools_matched: null,
    arg_match_details: null,
    metric_results: [],
    ground_truth: null,
    passed: turns.every((t) => t.passed),
    execution_time_ms: turns.reduce((n, t) => n + t.execution_time_ms, 0),
    errors: [],
    turns,
  };
}

export function singleTurn(index: number, overrides: Partial<TestResultJson>): TestResultJson {
  return {
    test_name: "single",
    test_index: index,
    test_input: "What is 2+2?",
    agent_response: "4",
    tools_matched: null,
    arg_match_details: null,
    metric_results: [],
    ground_truth: "4",
    passed: true,
    execution_time_ms: 900,
    errors: [],
    turns: null,
    ...overrides,
  };
}

/** The item lookup HolodeckTesting gives a RunSession, over the items under `file`. */
export function stubLookup(file: StubTestItem): {
  find: (ref: TestRef) => StubTestItem | undefined;
  turnsUnder: (ref: TestRef) => TestRef[];
} {
  const find = (ref: TestRef): StubTestItem | undefined => {
    if (ref.kind === "file") return file;
    const found = file.children.get(caseId(ref.uri, ref.caseIndex));
    return ref.kind === "case" ? found : found?.children.get(idOf(ref));
  };
  const turnsUnder = (ref: TestRef): TestRef[] => {
    if (ref.kind === "turn") return [ref];
    return (find(ref)?.children.all() ?? []).flatMap((child) => turnsUnder(parseTestId(child.id)));
  };
  return { find, turnsUnder };
}

/** A RunSession over `discovery()`'s items reporting into a StubRun, as HolodeckTesting wires one. */
export function stubSession(): { run: StubRun; session: RunSession<StubTestItem> } {
  const file = new StubTestItem(fileId(URI), "agent.yaml", URI);
  syncFileItem(stubFactory(), file, discovery());
  const { find, turnsUnder } = stubLookup(file);
  const run = new StubRun();
  return { run, session: new RunSession(run, { item: find, turnsUnder }) };
}
