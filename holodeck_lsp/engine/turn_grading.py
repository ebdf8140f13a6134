"""Grade one turn: what the agent did (an outcome) against what the turn asserts.

The executor produces a `TurnOutcome` per turn; the language server re-grades recorded
outcomes while the author edits assertions. Both call `grade_turn`, a pure function of its
inputs (code graders are user code: they are given a read-only context and run with a
time limit).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from holodeck_lsp.engine.code_graders import (
    DEFAULT_GRADER_TIMEOUT,
    GraderContext,
    run_code_grader,
)
from holodeck_lsp.engine.evaluators import evaluate_metric
from holodeck_lsp.engine.evaluators.judges import TurnInputs
from holodeck_lsp.engine.judging import Judging, grade_judged, judged
from holodeck_lsp.engine.tool_assertions import check_expected_tools
from holodeck_lsp.engine.tool_loop import limit_reason
from holodeck_lsp.schema.matchers import dump_arg_matcher
from holodeck_lsp.schema.metrics import AnyMetric, CodeMetric
from holodeck_lsp.schema.results import MetricResult, TokenUsage, ToolInvocation, TurnResult
from holodeck_lsp.schema.test_case import ExpectedTool, TestCase, Turn

GraderFn = Callable[[GraderContext], object]


@dataclass(frozen=True, slots=True)
class TurnSpec:
    """What a turn asserts: a `Turn`, or a single-turn case seen as its only turn."""

    index: int
    input: str
    ground_truth: str | None = None
    expected_tools: tuple[str | ExpectedTool, ...] | None = None
    retrieval_context: tuple[str, ...] | None = None
    turn_config: Mapping[str, Any] = field(default_factory=dict)
    #: A legacy single-turn case (no `turns:`): its grading follows upstream's legacy path.
    legacy: bool = False

    @classmethod
    def of_turn(cls, turn: Turn, index: int) -> TurnSpec:
        return cls(
            index=index,
            input=turn.input,
            ground_truth=turn.ground_truth,
            expected_tools=tuple(turn.expected_tools) if turn.expected_tools is not None else None,
            retrieval_context=tuple(turn.retrieval_context)
            if turn.retrieval_context is not None
            else None,
            turn_config=dict(turn.turn_config or {}),
        )

    @classmethod
    def of_single_turn_case(cls, case: TestCase) -> TurnSpec:
        return cls(
            index=0,
            input=case.input or "",
            ground_truth=case.ground_truth,
            expected_tools=tuple(case.expected_tools) if case.expected_tools is not None else None,
            retrieval_context=tuple(case.retrieval_context)
            if case.retrieval_context is not None
            else None,
            legacy=True,
        )


@dataclass(frozen=True, slots=True)
class TurnOutcome:
    """What happened when the turn was sent (or why it was not)."""

    response: str | None = None
    tool_invocations: tuple[ToolInvocation, ...] = ()
    token_usage: TokenUsage | None = None
    duration_ms: int = 0
    errors: tuple[str, ...] = ()
    #: The turn was never sent (session lost, run cancelled); `skip_reason` says why.
    skipped: bool = False
    skip_reason: str | None = None
    #: The provider could not complete the call (`errors` says how): not measured, so
    #: nothing is graded.
    errored: bool = False
    #: The tool calls of the case's earlier turns, turn by turn (for code graders).
    earlier_tool_invocations: tuple[tuple[ToolInvocation, ...], ...] = ()
    #: The tool-round limit, when the backend stopped the turn at it.
    tool_limit_reached: int | None = None


@dataclass(frozen=True, slots=True)
class GradingOptions:
    #: Seconds one regex matcher may run against one argument.
    regex_timeout: float = 1.0
    #: Seconds a code grader may run (the runner passes HOLODECK_GRADER_TIMEOUT, default 30).
    grader_timeout: float = DEFAULT_GRADER_TIMEOUT


def expected_tools_wire_form(
    entries: Sequence[str | ExpectedTool] | None,
) -> list[str | dict[str, Any]] | None:
    """Expected tools as written in YAML, for reports."""
    if entries is None:
        return None
    wire: list[str | dict[str, Any]] = []
    for entry in entries:
        if isinstance(entry, str):
            wire.append(entry)
            continue
        item: dict[str, Any] = {"name": entry.name}
        if entry.args is not None:
            item["args"] = {key: dump_arg_matcher(m) for key, m in entry.args.items()}
        if entry.count != 1:
            item["count"] = entry.count
        wire.append(item)
    return wire


def grade_turn(
    spec: TurnSpec,
    outcome: TurnOutcome,
    metrics: Sequence[AnyMetric],
    *,
    case_name: str | None,
    graders: Mapping[str, GraderFn] | None = None,
    options: GradingOptions | None = None,
    judging: Judging | None = None,
) -> TurnResult:
    """The TurnResult of one turn. `graders` maps a `module:callable` grader path to the
    loaded callable (loading is the caller's business: it runs user code); `judging`
    holds the judge verdicts for the judged metrics (without it they are skipped)."""
    options = options or GradingOptions()
    result = TurnResult(
        turn_index=spec.index,
        input=spec.input,
        response=outcome.response,
        ground_truth=spec.ground_truth,
        expected_tools=expected_tools_wire_form(spec.expected_tools),
        tool_calls=[call.name for call in outcome.tool_invocations],
        tool_invocations=list(outcome.tool_invocations),
        execution_time_ms=outcome.duration_ms,
        token_usage=outcome.token_usage,
        errors=list(outcome.errors),
        tool_limit_reached=outcome.tool_limit_reached,
    )
    if outcome.tool_limit_reached is not None:
        # The agent did not finish: failed with the reason, as agent frameworks count a turn
        # cut off at their loop's limit (docs/running.md, "Tool loop").
        result.errors.append(limit_reason(outcome.tool_limit_reached))
    if outcome.skipped:
        result.skipped = True
        result.errors.append(f"skipped: {outcome.skip_reason or 'not run'}")
        return result
    if outcome.errored:
        # Grading a missing answer would turn provider weather into failed metrics.
        result.errored = True
        return result
    result.tools_matched, result.arg_match_details = check_expected_tools(
        spec.expected_tools, outcome.tool_invocations, regex_timeout=options.regex_timeout
    )
    result.metric_results = [
        _grade_metric(metric, spec, outcome, case_name, graders or {}, options, judging)
        for metric in metrics
    ]
    details = {m.metric_name: m.details for m in result.metric_results if m.details is not None}
    result.grader_details = details or None
    asserts_something = bool(spec.expected_tools) or any(
        not m.skipped for m in result.metric_results
    )
    if not (outcome.response or "").strip() and asserts_something and not result.errors:
        result.errors.append("the agent gave an empty response")
    result.passed = _turn_passed(result)
    judge_errors = _judge_provider_errors(result)
    if judge_errors:
        # The judge's provider, not the agent, kept the turn from a verdict: the same
        # errored status as an agent call the provider could not answer.
        result.errored = True
        result.errors += judge_errors
    return result


def _grade_metric(
    metric: AnyMetric,
    spec: TurnSpec,
    outcome: TurnOutcome,
    case_name: str | None,
    graders: Mapping[str, GraderFn],
    options: GradingOptions,
    judging: Judging | None,
) -> MetricResult:
    candidate = judged(metric)
    if candidate is not None:
        return grade_judged(candidate, judge_inputs(spec, outcome), judging)
    if not isinstance(metric, CodeMetric):
        return evaluate_metric(
            metric,
            outcome.response,
            spec.ground_truth,
            list(spec.retrieval_context) if spec.retrieval_context is not None else None,
            legacy_case=spec.legacy,
        )
    if not metric.enabled:
        return MetricResult(
            metric_name=metric.display_name, kind="code", skipped=True, reasoning="disabled"
        )
    grader = graders.get(metric.grader)
    if grader is None:
        return MetricResult(
            metric_name=metric.display_name,
            kind="code",
            passed=False,
            error=f"grader {metric.grader!r} is not loaded",
        )
    context = GraderContext(
        turn_input=spec.input,
        agent_response=outcome.response or "",
        ground_truth=spec.ground_truth,
        tool_invocations=tuple(outcome.tool_invocations),
        retrieval_context=spec.retrieval_context,
        turn_index=spec.index,
        test_case_name=case_name,
        turn_config=spec.turn_config,  # the context freezes its own deep copy
        earlier_tool_invocations=outcome.earlier_tool_invocations,
        tool_limit_reached=outcome.tool_limit_reached,
    )
    return run_code_grader(grader, metric, context, timeout=options.grader_timeout)


def judge_inputs(spec: TurnSpec, outcome: TurnOutcome) -> TurnInputs:
    """What a judge may see of this turn: its input, the response, the ground truth and
    this turn's retrieval_context only."""
    return TurnInputs(
        input=spec.input,
        response=outcome.response,
        ground_truth=spec.ground_truth,
        retrieval_context=spec.retrieval_context,
    )


def _judge_provider_errors(result: TurnResult) -> list[str]:
    """The provider errors of the judged metrics that kept a turn from passing, when
    nothing else did (its tool assertions and every other metric passed, no error of its
    own); empty when the turn passed or failed on its own merits."""
    if result.passed or result.errors or result.skipped or result.tools_matched is False:
        return []
    failing = [m for m in result.metric_results if m.passed is False]
    if not failing or not all(m.errored for m in failing):
        return []
    return [f"metric {m.metric_name!r} not measured: {m.error}" for m in failing]


def _turn_passed(result: TurnResult) -> bool:
    if result.errors or result.skipped or result.tools_matched is False:
        return False
    return all(m.passed is not False for m in result.metric_results)
