"""What the human-facing renderers share: a case as a list of blocks (its turns, or one block
for a single-turn case), labels, numbers as text. Why a block failed is the engine's
(engine/verdict_reasons.py), re-exported here for the renderers."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from holodeck_lsp.engine.rollup import not_run
from holodeck_lsp.engine.verdict_reasons import Block as Block
from holodeck_lsp.engine.verdict_reasons import error_reason as error_reason
from holodeck_lsp.engine.verdict_reasons import failing_views as failing_views
from holodeck_lsp.engine.verdict_reasons import failure_reasons as failure_reasons
from holodeck_lsp.engine.verdict_reasons import number as number
from holodeck_lsp.engine.verdict_reasons import skip_reason as skip_reason
from holodeck_lsp.engine.verdict_reasons import tool_reason as tool_reason
from holodeck_lsp.schema.results import (
    MetricResult,
    TestReport,
    TestResult,
    TokenUsage,
)

TURN_ERROR_PREFIX = "[turn "


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
