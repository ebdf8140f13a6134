"""Grade a test case from the outcomes of its turns: picks each turn's metrics, grades every
turn, rolls the case up. `grade_case` does it all at once; the executor grades each turn as
it is answered (`grade_case_turn`, so progress shows each verdict live) and rolls the case up
at the end (`roll_up_case`) — the same steps, so the two can never grade differently.

Each turn is graded on its own, so a crash while grading one turn (a bug in a grader the
context protects against, say) is recorded on that turn and never loses another's result.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping, Sequence

from holodeck_lsp.engine.code_graders import stops_the_case
from holodeck_lsp.engine.judging import Judging
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
from holodeck_lsp.schema.metrics import AnyMetric, CodeMetric
from holodeck_lsp.schema.results import TestResult, TurnResult
from holodeck_lsp.schema.test_case import TestCase


def turn_specs(case: TestCase) -> list[TurnSpec]:
    """The turns a case sends: its `turns`, or the single-turn case as one turn."""
    if case.turns is not None:
        return [TurnSpec.of_turn(turn, index) for index, turn in enumerate(case.turns)]
    return [TurnSpec.of_single_turn_case(case)]


def turn_metrics(agent: Agent, case: TestCase, index: int) -> list[AnyMetric]:
    """The metrics that grade turn `index` of `case` (a single-turn case: index 0)."""
    turn = case.turns[index] if case.turns is not None else None
    return list(metrics_for(agent, case, turn))


def grade_case_turn(
    agent: Agent,
    case: TestCase,
    spec: TurnSpec,
    outcome: TurnOutcome,
    *,
    graders: Mapping[str, GraderFn] | None = None,
    options: GradingOptions | None = None,
    metrics: Sequence[AnyMetric] | None = None,
    judging: Judging | None = None,
) -> TurnResult:
    """One turn of `case` graded; a crash while grading fails this turn only. `metrics`:
    the turn's metrics when the caller already looked them up (`turn_metrics`)."""
    try:
        return grade_turn(
            spec,
            outcome,
            turn_metrics(agent, case, spec.index) if metrics is None else metrics,
            case_name=case.name,
            graders=graders,
            options=options,
            judging=judging,
        )
    except Exception as error:  # grading must never lose the other turns' results
        return TurnResult(
            turn_index=spec.index,
            input=spec.input,
            response=outcome.response,
            errors=[f"grading failed: {type(error).__name__}: {error}"],
        )


def case_stop_reason(metrics: Sequence[AnyMetric], graded: TurnResult) -> str | None:
    """Why the rest of the case is not run after `graded`, or None: a `type: code` metric
    with `fail_on_error: true` whose grader raised (or timed out) on this turn stops its
    case there, as upstream's does; the remaining turns are skipped with this reason."""
    results = {result.metric_name: result for result in graded.metric_results}
    for metric in metrics:
        if not isinstance(metric, CodeMetric):
            continue
        result = results.get(metric.display_name)
        if result is not None and stops_the_case(metric, result):
            return (
                f"not run: grader '{metric.grader}' failed on turn {graded.turn_index} "
                "and its metric sets fail_on_error: true"
            )
    return None


def roll_up_case(
    case: TestCase, index: int, turns: Sequence[TurnResult], timestamp: str
) -> TestResult:
    """The case's result from its graded turns (in turn order)."""
    if case.turns is None:
        return single_turn_result(case.name, index, turns[0], timestamp)
    return multi_turn_result(case.name, index, list(turns), timestamp)


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
    turns: list[TurnResult] = []
    stopped: str | None = None
    for spec in turn_specs(case):
        outcome = (
            outcomes[spec.index]
            if spec.index < len(outcomes)
            else TurnOutcome(skipped=True, skip_reason="no outcome recorded for this turn")
        )
        if stopped is not None:
            outcome = TurnOutcome(skipped=True, skip_reason=stopped)
        elif spec.index and not outcome.earlier_tool_invocations:
            # As the case runner hands them to code graders: every earlier turn's calls.
            earlier = tuple(tuple(o.tool_invocations) for o in outcomes[: spec.index])
            outcome = dataclasses.replace(outcome, earlier_tool_invocations=earlier)
        metrics = turn_metrics(agent, case, spec.index)
        graded = grade_case_turn(
            agent, case, spec, outcome, graders=graders, options=options, metrics=metrics
        )
        turns.append(graded)
        stopped = stopped or case_stop_reason(metrics, graded)
    return roll_up_case(case, index, turns, timestamp)
