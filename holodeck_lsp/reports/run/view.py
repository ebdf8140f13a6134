"""What the human-facing renderers share: a case as a list of blocks (its turns, or one block
for a single-turn case), labels, and the reasons a block failed."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from holodeck_lsp.engine.rollup import not_run
from holodeck_lsp.schema.results import (
    ArgMatchDetail,
    MetricResult,
    TestReport,
    TestResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
)

TURN_ERROR_PREFIX = "[turn "


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


@dataclass(frozen=True, slots=True)
class Case:
    """A test case in file order, with its blocks."""

    position: int  # index in the suite (test_index, else place in the report)
    result: TestResult
    blocks: tuple[Block, ...]
    #: In a model matrix or with repeats: which session of the case this is
    #: (`[openai:gpt-4o] #2`), so each report row and JUnit suite names its model.
    tag: str = ""

    @property
    def name(self) -> str:
        """The case's own name (`#N` when unnamed), without the session tag."""
        return self.result.test_name or f"#{self.position}"

    @property
    def label(self) -> str:
        return f"{self.name} {self.tag}" if self.tag else self.name

    @property
    def multi_turn(self) -> bool:
        return bool(self.result.turns)

    @property
    def turns_passed(self) -> int:
        return sum(1 for block in self.blocks if block.passed and not block.skipped)

    @property
    def case_errors(self) -> list[str]:
        """Errors of the case itself: for a multi-turn case, those not copied from a turn."""
        if not self.multi_turn:
            return []
        return [e for e in self.result.errors if not e.startswith(TURN_ERROR_PREFIX)]


def cases(report: TestReport) -> list[Case]:
    """The report's cases in file order (by `test_index`, report order on ties: a case's
    models and repeats side by side)."""
    several_models = len(report.models) > 1
    found = [
        Case(
            position=result.test_index if result.test_index is not None else place,
            result=result,
            blocks=tuple(Block.of_turn(turn) for turn in result.turns)
            if result.turns
            else (Block.of_case(result),),
            tag=_session_tag(result, several_models, report.repeats > 1),
        )
        for place, result in enumerate(report.results)
    ]
    return sorted(found, key=lambda case: case.position)


def _session_tag(result: TestResult, several_models: bool, repeats: bool) -> str:
    parts = []
    if several_models and result.model:
        parts.append(f"[{result.model}]")
    if repeats and result.repeat is not None:
        parts.append(f"#{result.repeat}")
    return " ".join(parts)


def metric_status(metric: MetricResult) -> str:
    if metric.skipped:
        return "skipped"
    if metric.error is not None:
        return "error"
    if metric.passed is None:
        return "not graded"
    return "passed" if metric.passed else "failed"


def number(value: float) -> str:
    return f"{value:.4g}"


def duration(ms: int) -> str:
    return f"{ms} ms" if ms < 1000 else f"{ms / 1000:.2f} s"


def usd(amount: float) -> str:
    """Cents for a bill; a small run's fractions of a cent with enough decimals to read."""
    if amount >= 10:
        return f"{amount:.2f} USD"
    return f"{amount:.4f} USD" if amount >= 0.01 or amount == 0 else f"{amount:.6f} USD"


def run_cost(costs: Iterable[float | None]) -> float | None:
    """The sum of the cases' costs, or None when one has none (its model has no price: a
    partial sum would pass for the whole bill)."""
    total = 0.0
    for cost in costs:
        if cost is None:
            return None
        total += cost
    return total


def tokens(usage: TokenUsage | None) -> str:
    return "—" if usage is None else f"{usage.total_tokens:,}"


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


def case_status(result: TestResult) -> str:
    """A case's status: `passed`, `errored` (not measured), `simulator failed` (its simulated
    user failed: no verdict on the agent, docs/simulated-users.md), `not run` (the run stopped
    before it finished, engine/rollup.py) or `failed`."""
    if result.passed:
        return "passed"
    if result.simulator_failed:
        return "simulator failed"
    if result.errored:
        return "errored"
    return "not run" if not_run(result) else "failed"


def error_reason(block: Block) -> str:
    """Why an errored block was not measured (the provider's error)."""
    return "; ".join(block.errors) or "the provider could not complete the call"


def skip_reason(block: Block) -> str:
    return "; ".join(block.errors) or "not run"
