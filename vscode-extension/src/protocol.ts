// The holodeck-lsp wire contract this extension relies on: custom request / notification
// names, workspace/executeCommand command ids and the JSON shapes they carry. Field names
// mirror holodeck_lsp/schema/results.py (snake_case) and server/runs/test_discovery.py (camelCase).
// Types only plus string constants: no `vscode` import, so the unit tests can load it.

export const DISCOVER_TESTS = "holodeck/discoverTests";
export const RUN_RESULT_NOTIFICATION = "holodeck/runResult";

export const ServerCommands = {
  runAll: "holodeck.runAll",
  runCase: "holodeck.runCase",
  runTurn: "holodeck.runTurn",
  regradeCase: "holodeck.regradeCase",
  cancelRun: "holodeck.cancelRun",
  lastRunReport: "holodeck.lastRunReport",
  compareWithBaseline: "holodeck.compareWithBaseline",
} as const;

/** Commands that execute the agent's tools and graders: refused while untrusted. */
export const RUN_COMMANDS: ReadonlySet<string> = new Set([
  ServerCommands.runAll,
  ServerCommands.runCase,
  ServerCommands.runTurn,
  ServerCommands.regradeCase,
]);

export interface LspPosition {
  line: number;
  character: number;
}

export interface LspRange {
  start: LspPosition;
  end: LspPosition;
}

export interface DiscoveredTurn {
  index: number;
  range: LspRange;
  inputRange: LspRange;
  /** The turn's `input:` as written (null when not a plain string; absent from older servers). */
  input?: string | null;
  /** Passed (or passed more often) in the baseline run, fails now (absent from older servers). */
  regressed?: boolean;
}

export interface DiscoveredCase {
  index: number;
  name: string | null;
  range: LspRange;
  turns: DiscoveredTurn[];
  /** How many of its turns regressed against the baseline. */
  regressions?: number;
  /** Its `simulated_user` key, when it has a simulated user (absent from older servers). */
  simulatedRange?: LspRange | null;
}

/** `holodeck/discoverTests` result (null when the document is not an agent or include). */
export interface Discovery {
  uri: string;
  agentUri: string;
  range: LspRange;
  cases: DiscoveredCase[];
  /** What the regression marks compare with (a tag or run id); null: nothing compared. */
  baseline?: string | null;
}

export interface MetricResultJson {
  metric_name: string;
  kind: "standard" | "rag" | "geval" | "code" | string;
  score: number;
  threshold: number | null;
  passed: boolean | null;
  skipped: boolean;
  error: string | null;
  reasoning: string | null;
}

export interface ArgMatchDetailJson {
  tool: string;
  args_asserted?: Record<string, unknown> | null;
  count?: number;
  matched_calls?: number;
  unmatched_reason: string | null;
}

export interface TurnResultJson {
  turn_index: number;
  input: string;
  response: string | null;
  ground_truth: string | null;
  expected_tools?: Array<string | Record<string, unknown>> | null;
  tool_calls?: string[];
  tools_matched: boolean | null;
  arg_match_details: ArgMatchDetailJson[] | null;
  metric_results: MetricResultJson[];
  passed: boolean;
  execution_time_ms: number;
  errors: string[];
  skipped: boolean;
  /** In a simulated conversation: who wrote the input (docs/simulated-users.md). */
  user_source?: "scripted" | "simulated" | "recorded" | null;
}

/** A simulated user's record of one case (docs/simulated-users.md). */
export interface SimulationJson {
  model: string;
  fingerprint: string;
  simulated_turns: number;
  stop_marker: string | null;
  failure: string | null;
  failure_detail: string | null;
  diverged_at_turn?: number | null;
  divergence?: string | null;
  /** The at_end checks, graded over the whole conversation. */
  at_end?: TurnResultJson | null;
}

export interface TestResultJson {
  test_name: string | null;
  test_index: number | null;
  test_input: string;
  agent_response: string | null;
  tool_calls?: string[];
  expected_tools?: Array<string | Record<string, unknown>> | null;
  tools_matched: boolean | null;
  arg_match_details: ArgMatchDetailJson[] | null;
  metric_results: MetricResultJson[];
  ground_truth: string | null;
  passed: boolean;
  execution_time_ms: number;
  errors: string[];
  turns: TurnResultJson[] | null;
  simulation?: SimulationJson | null;
  /** The simulated user failed: no verdict on the agent. */
  simulator_failed?: boolean;
}

export interface ReportSummaryJson {
  total_tests: number;
  passed: number;
  failed: number;
  pass_rate: number;
  total_duration_ms?: number;
  total_turns?: number;
  passed_turns?: number;
}

export type RunResponse =
  | { status: "done" | "cancelled"; summary: ReportSummaryJson; results: TestResultJson[] }
  | { status: "refused"; reason: string };

/** `holodeck/runResult`: one finished case (also sent for re-grades after edits). */
export interface RunResultParams {
  uri: string;
  caseIndex: number;
  turn: number | null;
  regraded: boolean;
  /** Re-graded by the server while the file was edited (not a run the user started). */
  quiet?: boolean;
  result: TestResultJson;
}

export type LastReportResponse =
  | { status: "done"; markdown: string }
  | { status: "none"; reason: string };

/** Loose runtime check: the server is another process, its answers are data to validate. */
export function isRunResponse(value: unknown): value is RunResponse {
  if (typeof value !== "object" || value === null) return false;
  const status = (value as { status?: unknown }).status;
  if (status === "refused") return typeof (value as { reason?: unknown }).reason === "string";
  return (
    (status === "done" || status === "cancelled") &&
    Array.isArray((value as { results?: unknown }).results)
  );
}

/** `holodeck.compareWithBaseline [uri, {format}?]`. */
export type CompareResponse =
  | { status: "done"; markdown?: string; html?: string; base: string; head: string; regressions: number }
  | { status: "none" | "refused"; reason: string };
