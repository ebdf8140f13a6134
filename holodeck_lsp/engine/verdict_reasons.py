"""Why a turn failed, in words: a turn (or a single-turn case) as a `Block`, and its failure
reasons — its errors, the tool assertions that did not hold, each failing metric — one line
each. The engine's account of its own verdicts, shared by every renderer (reports/run/) and by
`compare` (comparison_rows.py), which shows a regressed turn's new reason."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from holodeck_lsp.schema.results import (
    ArgMatchDetail,
    MetricResult,
    TestResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
)


@dataclass(frozen=True, slots=True)
class Block:
    """One exchange to render: a turn, or the whole of a single-turn case."""

    turn_index: int | None  # None: a single-turn case
    input: str
    response: str | None
    ground_truth: str | None
    tool_calls: Sequence[str]
    tool_invocations: Sequence[ToolInvocation]
    expected_tools: Sequence[str | dict[str, object]] | None
    tools_matched: bool | None
    arg_match_details: Sequence[ArgMatchDetail] | None
    metric_results: Sequence[MetricResult]
    passed: bool
    skipped: bool
    execution_time_ms: int
    token_usage: TokenUsage | None
    errors: Sequence[str]
    #: The provider could not complete the call: not measured (neither passed nor failed).
    errored: bool = False

    @property
    def status(self) -> str:
        """`passed`, `failed`, `errored` or `skipped`: what every renderer shows."""
        if self.skipped:
            return "skipped"
        if self.errored:
            return "errored"
        return "passed" if self.passed else "failed"

    @classmethod
    def of_turn(cls, turn: TurnResult) -> Block:
        return cls(
            turn_index=turn.turn_index,
            input=turn.input,
            response=turn.response,
            ground_truth=turn.ground_truth,
            tool_calls=turn.tool_calls,
            tool_invocations=turn.tool_invocations,
            expected_tools=turn.expected_tools,
            tools_matched=turn.tools_matched,
            arg_match_details=turn.arg_match_details,
            metric_results=turn.metric_results,
            passed=turn.passed,
            skipped=turn.skipped,
            execution_time_ms=turn.execution_time_ms,
            token_usage=turn.token_usage,
            errors=turn.errors,
            errored=turn.errored,
        )

    @classmethod
    def of_case(cls, case: TestResult) -> Block:
        return cls(
            turn_index=None,
            input=case.test_input,
            response=case.agent_response,
            ground_truth=case.ground_truth,
            tool_calls=case.tool_calls,
            tool_invocations=case.tool_invocations,
            expected_tools=case.expected_tools,
            tools_matched=case.tools_matched,
            arg_match_details=case.arg_match_details,
            metric_results=case.metric_results,
            passed=case.passed,
            skipped=False,
            execution_time_ms=case.execution_time_ms,
            token_usage=case.token_usage,
            errors=case.errors,
            errored=case.errored,
        )


def number(value: float) -> str:
    return f"{value:.4g}"


def tool_reason(detail: ArgMatchDetail) -> str | None:
    reason = detail.unmatched_reason
    if reason is None:
        return None
    # "tool 'x' was not called ..." names the tool already.
    return reason if reason.startswith("tool '") else f"tool '{detail.tool}': {reason}"


def failure_reasons(block: Block) -> list[str]:
    """Why a block failed, one line each: errors, tool assertions, metrics."""
    reasons = _strict_reasons(block) + _metric_reasons(block)
    if not reasons and not block.passed:
        reasons.append("failed")
    return reasons


def failing_views(block: Block) -> list[str]:
    """Why a block failed, one line per view that failed it: the first of its errors and
    tool assertions (the strict view, `expected_tools`), then each failing metric (a view
    of its own, such as an imported suite's BFCL-equivalent grader) — so a block failing
    several views never shows only the first."""
    strict = _strict_reasons(block)
    views = strict[:1] + _metric_reasons(block)
    if not views and not block.passed:
        views.append("failed")
    return views


def _strict_reasons(block: Block) -> list[str]:
    reasons = list(block.errors)
    details = block.arg_match_details or ()
    reasons += [reason for detail in details if (reason := tool_reason(detail)) is not None]
    if block.tools_matched is False and not any(d.unmatched_reason for d in details):
        reasons.append("expected tools were not called as asserted")
    return reasons


def _metric_reasons(block: Block) -> list[str]:
    reasons = []
    for metric in block.metric_results:
        if metric.skipped:
            continue
        if metric.error is not None:
            reasons.append(f"metric '{metric.metric_name}' error: {metric.error}")
        elif metric.passed is False:
            text = f"metric '{metric.metric_name}' failed: score {number(metric.score)}"
            if metric.threshold is not None:
                text += f" < threshold {number(metric.threshold)}"
            if metric.reasoning:
                text += f" ({metric.reasoning})"
            reasons.append(text)
    return reasons


def error_reason(block: Block) -> str:
    """Why an errored block was not measured (the provider's error)."""
    return "; ".join(block.errors) or "the provider could not complete the call"


def skip_reason(block: Block) -> str:
    return "; ".join(block.errors) or "not run"
