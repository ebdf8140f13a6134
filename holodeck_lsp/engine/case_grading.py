"""Grade a whole test case from the outcomes of its turns (the executor's and the editor's
entry point): picks each turn's metrics, grades every turn, rolls the case up.

Each turn is graded on its own, so a crash while grading one turn (a bug in a grader the
context protects against, say) is recorded on that turn and never loses another's result.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from holodeck_lsp.engine.metric_selection import metrics_for
from holodeck_lsp.engine.rollup import multi_turn_result, single_turn_result
from holodeck_lsp.engine.turn_grading import (
    GraderFn,
    GradingOptions,
    TurnOutcome,
    TurnSpec,
    grade_turn,
)
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestResult, TurnResult
from holodeck_lsp.schema.test_case import TestCase


def turn_specs(case: TestCase) -> list[TurnSpec]:
    """The turns a case sends: its `turns`, or the single-turn case as one turn."""
    if case.turns is not None:
        return [TurnSpec.of_turn(turn, index) for index, turn in enumerate(case.turns)]
    return [TurnSpec.of_single_turn_case(case)]


def grade_case(
    agent: Agent,
    case: TestCase,
    index: int,
    outcomes: Sequence[TurnOutcome],
    *,
    graders: Mapping[str, GraderFn] | None = None,
    options: GradingOptions | None = None,
    timestamp: str = "",
) -> TestResult:
    """`outcomes[i]` is what happened on turn i; missing trailing outcomes count as turns
    that were never sent (skipped)."""
    specs = turn_specs(case)
    turns: list[TurnResult] = []
    for spec in specs:
        outcome = (
            outcomes[spec.index]
            if spec.index < len(outcomes)
            else TurnOutcome(skipped=True, skip_reason="no outcome recorded for this turn")
        )
        turn = case.turns[spec.index] if case.turns is not None else None
        try:
            graded = grade_turn(
                spec,
                outcome,
                metrics_for(agent, case, turn),
                case_name=case.name,
                graders=graders,
                options=options,
            )
        except Exception as error:  # grading must never lose the other turns' results
            graded = TurnResult(
                turn_index=spec.index,
                input=spec.input,
                response=outcome.response,
                errors=[f"grading failed: {type(error).__name__}: {error}"],
            )
        turns.append(graded)
    if case.turns is None:
        return single_turn_result(case.name, index, turns[0], timestamp)
    return multi_turn_result(case.name, index, turns, timestamp)
