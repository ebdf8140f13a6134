"""Run results: what a test run produces, per turn and per case, and the report around them.

Field names are HoloDeck's own (docs/running.md#reports), so reports written here read like
HoloDeck's: TurnResult per turn, TestResult per case with the turn roll-up,
TestReport with a summary that counts test cases (not turns).
"""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

MetricKind = Literal["standard", "rag", "geval", "code"]
#: How a simulated user's part of a conversation went wrong (docs/simulated-users.md,
#: "Trust"): its provider failed, it never wrote a stop marker within `max_turns`, it wrote
#: as the agent (role prefix, tool-call syntax), it repeated its instructions verbatim, or it
#: wrote what its `never_says` forbids.
SimulatorFailure = Literal[
    "provider_error", "never_stopped", "answered_as_agent", "leaked", "broke_persona"
]
#: Who wrote a turn's user message: the case's script, the simulator, or a recording.
UserSource = Literal["scripted", "simulated", "recorded"]
#: Why a tool call could not run as the model sent it (docs/running.md, "Tool loop").
CallProblem = Literal["unknown_tool", "invalid_json", "bad_arguments"]


class _Result(BaseModel):
    model_config = ConfigDict(extra="forbid")


class TokenUsage(_Result):
    """Tokens one call (or, summed, one turn or case) used."""

    prompt_tokens: int = Field(default=0, ge=0)
    completion_tokens: int = Field(default=0, ge=0)
    total_tokens: int = Field(default=0, ge=0)
    cache_creation_tokens: int = Field(default=0, ge=0, description="Written to a prompt cache.")
    cache_read_tokens: int = Field(default=0, ge=0, description="Served from a prompt cache.")

    @model_validator(mode="after")
    def _total_covers_parts(self) -> Self:
        # Providers count cache reads differently, so the total may exceed the two parts.
        if self.total_tokens < self.prompt_tokens + self.completion_tokens:
            raise ValueError("total_tokens must be at least prompt_tokens + completion_tokens")
        return self

    def __add__(self, other: TokenUsage) -> TokenUsage:
        return TokenUsage(
            prompt_tokens=self.prompt_tokens + other.prompt_tokens,
            completion_tokens=self.completion_tokens + other.completion_tokens,
            total_tokens=self.total_tokens + other.total_tokens,
            cache_creation_tokens=self.cache_creation_tokens + other.cache_creation_tokens,
            cache_read_tokens=self.cache_read_tokens + other.cache_read_tokens,
        )

    @classmethod
    def zero(cls) -> TokenUsage:
        return cls()


class ToolInvocation(_Result):
    """One tool call the agent made, as captured from the backend."""

    name: str = Field(description="Tool name as the backend reports it (may carry a prefix).")
    args: dict[str, Any] = Field(default_factory=dict, description="Arguments by name.")
    result: Any = Field(default=None, description="What the tool returned.")
    duration_ms: int | None = Field(default=None, ge=0)
    error: str | None = Field(
        default=None,
        description="The tool's error, if it raised, or the error result the model was given "
        "for a call that could not run (see `call_problem`).",
    )
    raw_arguments: str | None = Field(
        default=None,
        description="The argument text exactly as the model sent it (None: the provider sent "
        "a parsed object, or nothing).",
    )
    call_id: str | None = Field(
        default=None,
        exclude=True,
        description="The provider's id of the call, for the run's trace only (never in a "
        "report or cassette).",
    )
    call_problem: CallProblem | None = Field(
        default=None,
        description="Why the call could not run as sent: `unknown_tool` (no tool of that "
        "name), `invalid_json` (the arguments are not a JSON object), `bad_arguments` (they "
        "do not fit the tool's signature). The model got `error` as the call's result.",
    )


class MetricResult(_Result):
    """One metric's outcome on one turn (or, rolled up, on one case)."""

    metric_name: str
    kind: MetricKind = "standard"
    score: float = 0.0
    threshold: float | None = None
    passed: bool | None = Field(default=None, description="None when skipped.")
    skipped: bool = Field(default=False, description="Not evaluated; see `reasoning`.")
    error: str | None = Field(default=None, description="Why evaluation failed, kept verbatim.")
    errored: bool = Field(
        default=False,
        description="The judge's provider could not answer (429 after the retry budget, 5xx, "
        "connection lost, HTTP timeout): `error` says how; not measured, not a wrong answer.",
    )
    reasoning: str | None = Field(default=None, description="Explanation or skip reason.")
    evaluation_time_ms: int | None = None
    model_used: str | None = Field(
        default=None, description="The judge model of an LLM-judged metric, `provider:name`."
    )
    details: dict[str, Any] | None = Field(default=None, description="Code grader details.")
    judge_tokens: TokenUsage | None = Field(
        default=None, description="Tokens the judge spent on this metric (not the agent's)."
    )
    judge_latency_ms: int | None = Field(
        default=None, ge=0, description="Wall time of the judge's calls for this metric."
    )
    judge_input: str | None = Field(
        default=None,
        description="Fingerprint of what the judge saw (criteria, steps, response, context): "
        "a recorded judgement is reused only for the same fingerprint.",
    )


class ArgMatchDetail(_Result):
    """The outcome of one `expected_tools` assertion on one turn."""

    tool: str = Field(description="The expected tool name (a substring of the called name).")
    args_asserted: dict[str, Any] | None = Field(
        default=None, description="Asserted arguments in their YAML form."
    )
    count: int = Field(default=1, description="Matching calls required.")
    matched_calls: int = Field(default=0, description="Calls in the turn that matched.")
    matched_call_index: int | None = Field(
        default=None, description="Index (in the turn's calls) of the first matching call."
    )
    unmatched_reason: str | None = Field(
        default=None, description="What differed, when the assertion failed."
    )

    @property
    def passed(self) -> bool:
        return self.unmatched_reason is None


class TurnResult(_Result):
    """One turn of a multi-turn case."""

    turn_index: int = Field(ge=0)
    input: str
    response: str | None = None
    ground_truth: str | None = None
    expected_tools: list[str | dict[str, Any]] | None = None
    tool_calls: list[str] = Field(default_factory=list, description="Called tool names.")
    tool_invocations: list[ToolInvocation] = Field(default_factory=list)
    tools_matched: bool | None = Field(default=None, description="None: nothing asserted.")
    arg_match_details: list[ArgMatchDetail] | None = None
    metric_results: list[MetricResult] = Field(default_factory=list)
    passed: bool = False
    execution_time_ms: int = Field(default=0, ge=0)
    token_usage: TokenUsage | None = None
    errors: list[str] = Field(default_factory=list)
    skipped: bool = Field(default=False, description="Never sent (session lost, cancelled).")
    errored: bool = Field(
        default=False,
        description="The provider could not complete the agent call, or a judge call the "
        "turn's only non-passing metrics needed (429 after the retry budget, 5xx, connection "
        "lost, HTTP timeout): not measured, neither passed nor failed.",
    )
    cost_usd: float | None = Field(
        default=None, ge=0.0, description="The agent's tokens at the price list (None: no price)."
    )
    tool_limit_reached: int | None = Field(
        default=None,
        ge=1,
        description="The tool-round limit, when the turn was stopped at it (docs/running.md, "
        '"Tool loop"): the response is what the model said once no more rounds were allowed.',
    )
    grader_details: dict[str, Any] | None = None
    user_source: UserSource | None = Field(
        default=None,
        description="In a simulated conversation: who wrote this turn's input (None: a "
        "scripted case's turn).",
    )


class SimulationResult(_Result):
    """What the simulated user did in one case (docs/simulated-users.md)."""

    model: str = Field(description="The simulator's model, `provider:name`.")
    fingerprint: str = Field(
        description="sha256 of the simulator's model and instructions: two runs with the same "
        "fingerprint had the same simulated user."
    )
    scripted_turns: int = Field(default=0, ge=0, description="Scripted opening turns sent.")
    simulated_turns: int = Field(default=0, ge=0, description="User messages it wrote and sent.")
    stop_marker: str | None = Field(default=None, description="The marker that ended it.")
    final_message: str | None = Field(
        default=None, description="Its last message (the one with the stop marker; not sent)."
    )
    token_usage: TokenUsage | None = Field(
        default=None,
        description="Tokens the simulator's model spent (apart from the agent's and the "
        "judges'); None on a replay, which asks no model.",
    )
    failure: SimulatorFailure | None = Field(
        default=None, description="The simulator's own failure, when it failed (not the agent's)."
    )
    failure_detail: str | None = None
    at_end: TurnResult | None = Field(
        default=None, description="The `at_end` checks, graded over the whole conversation."
    )
    diverged_at_turn: int | None = Field(
        default=None,
        description="Replaying recorded user turns to a live agent: the first turn (0-based) "
        "whose answer diverged from the recording; later recorded user turns may not fit.",
    )
    divergence: str | None = Field(default=None, description="How that turn diverged.")


class TestResult(_Result):
    """One test case; for multi-turn cases the top-level fields roll the turns up."""

    __test__ = False  # not a pytest test class

    test_name: str | None = None
    test_index: int | None = Field(default=None, description="Position in the suite.")
    test_input: str = ""
    agent_response: str | None = None
    tool_calls: list[str] = Field(default_factory=list)
    tool_invocations: list[ToolInvocation] = Field(default_factory=list)
    expected_tools: list[str | dict[str, Any]] | None = None
    tools_matched: bool | None = None
    arg_match_details: list[ArgMatchDetail] | None = None
    metric_results: list[MetricResult] = Field(default_factory=list)
    ground_truth: str | None = None
    passed: bool = False
    execution_time_ms: int = Field(default=0, ge=0)
    errors: list[str] = Field(default_factory=list)
    timestamp: str = ""
    token_usage: TokenUsage | None = None
    turns: list[TurnResult] | None = None
    # Additive fields for model matrices and repeats (older reports leave them unset).
    model: str | None = Field(
        default=None,
        description="The model that produced this result, as `provider:name`.",
    )
    repeat: int | None = Field(
        default=None, ge=1, description="Which of the `--repeat N` runs this is (1..N)."
    )
    errored: bool = Field(
        default=False,
        description="Some turn errored (the provider, not the agent) and no turn failed: the "
        "case is not measured and counts in neither passed nor failed.",
    )
    tool_limit_reached: int | None = Field(
        default=None,
        ge=1,
        description="A single-turn case's `TurnResult.tool_limit_reached` (a multi-turn case "
        "keeps it on each turn).",
    )
    cost_usd: float | None = Field(
        default=None, ge=0.0, description="The agent's tokens at the price list (None: no price)."
    )
    simulation: SimulationResult | None = Field(
        default=None, description="A simulated-user case: what the simulator did."
    )
    simulator_failed: bool = Field(
        default=False,
        description="The simulated user failed (see `simulation.failure`) and no answered turn "
        "failed: no verdict on the agent, counted in neither passed, failed nor errored.",
    )

    def turn_results(self) -> list[TurnResult]:
        """The case's turns; a single-turn case as its one turn 0, built from the case-level
        fields (never sent when it has errors and no answer). What the editor shows per turn
        and what a transcript of the case records."""
        if self.turns is not None:
            return list(self.turns)
        return [
            TurnResult(
                turn_index=0,
                input=self.test_input or "-",
                response=self.agent_response,
                ground_truth=self.ground_truth,
                expected_tools=self.expected_tools,
                tool_calls=self.tool_calls,
                tool_invocations=self.tool_invocations,
                tools_matched=self.tools_matched,
                arg_match_details=self.arg_match_details,
                metric_results=self.metric_results,
                passed=self.passed,
                execution_time_ms=self.execution_time_ms,
                token_usage=self.token_usage,
                errors=self.errors,
                skipped=bool(self.errors) and self.agent_response is None and not self.errored,
                errored=self.errored,
                tool_limit_reached=self.tool_limit_reached,
            )
        ]


class ReportSummary(_Result):
    """Counts test cases, not turns (turns are reporting detail)."""

    total_tests: int = Field(ge=0)
    passed: int = Field(ge=0)
    failed: int = Field(ge=0)
    errored: int = Field(
        default=0, ge=0, description="Cases not measured: a turn errored on the provider."
    )
    pass_rate: float = Field(
        ge=0.0, le=100.0, description="Percent of the measured (not errored) cases that passed."
    )
    total_duration_ms: int = Field(default=0, ge=0)
    total_turns: int = Field(default=0, ge=0)
    passed_turns: int = Field(default=0, ge=0)
    errored_turns: int = Field(default=0, ge=0)
    metrics_evaluated: dict[str, int] = Field(default_factory=dict)
    average_scores: dict[str, float] = Field(default_factory=dict)
    judge_token_usage: TokenUsage | None = Field(
        default=None, description="Tokens LLM judges spent grading (apart from the agent's)."
    )
    cost_usd: float | None = Field(
        default=None,
        ge=0.0,
        description="The agent's tokens at the price list; None: some model has no price.",
    )

    not_run: int = Field(
        default=0,
        ge=0,
        description="Cases the run never finished (Ctrl-C, --fail-fast, a budget): a turn "
        "skipped as cancelled or not started and none failed; counted apart from failed. "
        "Older reports leave it 0.",
    )

    simulator_failed: int = Field(
        default=0,
        ge=0,
        description="Cases whose simulated user failed (its provider, never stopping, writing "
        "as the agent, leaking its instructions): no verdict on the agent.",
    )

    @model_validator(mode="after")
    def _counts_add_up(self) -> Self:
        counted = self.passed + self.failed + self.errored + self.not_run + self.simulator_failed
        if counted != self.total_tests:
            raise ValueError(
                "passed + failed + errored + not_run + simulator_failed must equal total_tests"
            )
        return self


class TestReport(_Result):
    __test__ = False

    @model_validator(mode="before")
    @classmethod
    def _derived_statistics_dropped(cls, data: Any) -> Any:
        # The JSON report writes `statistics` (schema/statistics.py), derived from the results:
        # recomputed whenever it is shown, so a file's copy is not read back.
        if isinstance(data, dict) and "statistics" in data:
            return {key: value for key, value in data.items() if key != "statistics"}
        return data

    agent_name: str
    agent_config_path: str
    results: list[TestResult] = Field(default_factory=list)
    summary: ReportSummary
    timestamp: str
    holodeck_version: str = Field(description="The tool that produced the report.")
    environment: dict[str, str] = Field(default_factory=dict)
    # Additive fields for model matrices, repeats and the run history (older reports leave them
    # unset). With several models or repeats, `results` holds one entry per case per model per
    # repeat and `summary` counts all of them; `model_summaries` counts each model apart.
    models: list[str] = Field(
        default_factory=list, description="The models run, as `provider:name`, in `--model` order."
    )
    repeats: int = Field(default=1, ge=1, description="Sessions per case per model (`--repeat N`).")
    model_summaries: dict[str, ReportSummary] = Field(
        default_factory=dict, description="The summary of each model's results, by `provider:name`."
    )
    run_id: str | None = Field(
        default=None, description="The id this run is stored under in `.holodeck/runs/`."
    )
    interrupted: bool = Field(
        default=False,
        description="The run was stopped (Ctrl-C) before every case finished; turns never sent "
        "are `skipped`.",
    )
    stop_reason: str | None = Field(
        default=None,
        description="Why the run stopped starting cases early (a `--max-cost` / `--max-turns` "
        "budget); the run is `interrupted` and can be resumed.",
    )
