"""Turn results -> a test case's result -> a report summary (docs/grading.md#roll-up).

A multi-turn case's top-level fields summarise its turns: inputs joined with `\\n---\\n`, the
last response, every call in turn order, token usage summed field by field, each metric once
with the mean score of the turns that ran it, errors prefixed `[turn N]`, and `passed` only
when every turn passed. The summary counts test cases, not turns.

Errored turns (the provider could not answer the agent, or a judge the turn needed: schema
`TurnResult.errored`) are not measured:
a case with an errored turn and no failed one is `errored`, counted apart from passed and
failed, and left out of the pass rate (a rate limit is not a wrong answer).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from statistics import fmean
from typing import Any

from holodeck_lsp.engine.token_totals import judge_usage, sum_usage
from holodeck_lsp.schema.results import (
    MetricResult,
    ReportSummary,
    TestResult,
    TurnResult,
)

INPUT_SEPARATOR = "\n---\n"


def roll_up_metrics(turns: Sequence[TurnResult]) -> list[MetricResult]:
    """One result per metric name, in first-seen order; skipped turns do not count and a
    metric every turn skipped is left out (a mean of nothing is not a score of 0)."""
    by_name: dict[str, list[tuple[int, MetricResult]]] = {}
    for turn in turns:
        for metric in turn.metric_results:
            if not metric.skipped:
                by_name.setdefault(metric.metric_name, []).append((turn.turn_index, metric))
    rolled: list[MetricResult] = []
    for name, results in by_name.items():
        first = results[0][1]
        errors = [f"[turn {index}] {m.error}" for index, m in results if m.error]
        # A judge the provider kept from answering gave no score: its 0 is not averaged.
        measured = [m.score for _, m in results if not m.errored] or [0.0]
        not_passed = [m for _, m in results if m.passed is not True]
        rolled.append(
            MetricResult(
                metric_name=name,
                kind=first.kind,
                score=fmean(measured),
                threshold=first.threshold,
                passed=not not_passed,
                error="; ".join(errors) or None,
                errored=bool(not_passed) and all(m.errored for m in not_passed),
                evaluation_time_ms=sum(m.evaluation_time_ms or 0 for _, m in results),
            )
        )
    return rolled


def _union(
    lists: Iterable[list[str | dict[str, Any]] | None],
) -> list[str | dict[str, Any]] | None:
    seen: set[str] = set()
    union: list[str | dict[str, Any]] = []
    asserted = False
    for entries in lists:
        if entries is None:
            continue
        asserted = True
        for entry in entries:
            key = json.dumps(entry, sort_keys=True, default=str)
            if key not in seen:
                seen.add(key)
                union.append(entry)
    return union if asserted else None


def _measured_failure(turn: TurnResult) -> bool:
    """A verdict of failure: the turn was answered (or graded) and did not pass."""
    return not turn.passed and not turn.errored and not turn.skipped


def case_errored(turns: Sequence[TurnResult]) -> bool:
    """Some turn errored and none failed on its own: turns skipped after the errored one
    (a dead session) are not failures either."""
    return any(t.errored for t in turns) and not any(_measured_failure(t) for t in turns)


def multi_turn_result(
    name: str | None, index: int | None, turns: Sequence[TurnResult], timestamp: str = ""
) -> TestResult:
    asserted = [t.tools_matched for t in turns if t.tools_matched is not None]
    return TestResult(
        test_name=name,
        test_index=index,
        test_input=INPUT_SEPARATOR.join(turn.input for turn in turns),
        agent_response=turns[-1].response if turns else None,
        tool_calls=[call for turn in turns for call in turn.tool_calls],
        tool_invocations=[call for turn in turns for call in turn.tool_invocations],
        expected_tools=_union(turn.expected_tools for turn in turns),
        tools_matched=all(asserted) if asserted else None,
        metric_results=roll_up_metrics(turns),
        ground_truth=None,
        passed=bool(turns) and all(turn.passed for turn in turns),
        execution_time_ms=sum(turn.execution_time_ms for turn in turns),
        errors=[f"[turn {turn.turn_index}] {error}" for turn in turns for error in turn.errors],
        timestamp=timestamp,
        token_usage=sum_usage(turn.token_usage for turn in turns),
        turns=list(turns),
        errored=case_errored(turns),
    )


def single_turn_result(
    name: str | None, index: int | None, turn: TurnResult, timestamp: str = ""
) -> TestResult:
    """A legacy single-turn case: its one graded exchange, without `turns`."""
    return TestResult(
        test_name=name,
        test_index=index,
        test_input=turn.input,
        agent_response=turn.response,
        tool_calls=list(turn.tool_calls),
        tool_invocations=list(turn.tool_invocations),
        expected_tools=turn.expected_tools,
        tools_matched=turn.tools_matched,
        arg_match_details=turn.arg_match_details,
        metric_results=list(turn.metric_results),
        ground_truth=turn.ground_truth,
        passed=turn.passed,
        execution_time_ms=turn.execution_time_ms,
        errors=list(turn.errors),
        timestamp=timestamp,
        token_usage=turn.token_usage,
        turns=None,
        errored=turn.errored,
        tool_limit_reached=turn.tool_limit_reached,
    )


#: How a turn the run never answered is skipped (runner/execution: the executor and the case
#: runner): cancelled (Ctrl-C, --fail-fast) or never started (a budget, an early stop).
NOT_RUN_REASONS = ("skipped: cancelled", "skipped: not started")


def cut_short(result: TestResult) -> bool:
    """Some turn of the case was never answered: cancelled, or never started."""
    if result.turns is None:  # a single-turn case: its one turn's errors are the case's
        return not result.passed and any(e.startswith(NOT_RUN_REASONS) for e in result.errors)
    return any(
        turn.skipped and any(error.startswith(NOT_RUN_REASONS) for error in turn.errors)
        for turn in result.turns
    )


def not_run(result: TestResult) -> bool:
    """The run never finished this case: it was cut short and no answered turn failed —
    neither a pass nor a failure."""
    if result.passed or result.errored or not cut_short(result):
        return False
    turns = result.turns or []
    return not any(not turn.passed and not turn.skipped and not turn.errored for turn in turns)


def summarize(results: Sequence[TestResult]) -> ReportSummary:
    passed = sum(1 for result in results if result.passed)
    simulator = sum(1 for result in results if result.simulator_failed and not result.passed)
    errored = sum(1 for r in results if r.errored and not r.passed and not r.simulator_failed)
    never = sum(1 for result in results if not_run(result) and not result.simulator_failed)
    measured = len(results) - errored - never - simulator
    counts: dict[str, int] = {}
    scores: dict[str, list[float]] = {}
    turns_total = turns_passed = turns_errored = 0
    for result in results:
        turns = result.turns if result.turns is not None else None
        turns_total += len(turns) if turns is not None else 1
        turns_passed += sum(t.passed for t in turns) if turns is not None else int(result.passed)
        turns_errored += sum(t.errored for t in turns) if turns is not None else int(result.errored)
        for metric in result.metric_results:
            if metric.errored:
                continue  # not measured: neither an evaluation nor a score of 0
            counts[metric.metric_name] = counts.get(metric.metric_name, 0) + 1
            scores.setdefault(metric.metric_name, []).append(metric.score)
    return ReportSummary(
        judge_token_usage=judge_usage(results),
        total_tests=len(results),
        passed=passed,
        failed=measured - passed,
        errored=errored,
        not_run=never,
        simulator_failed=simulator,
        pass_rate=100.0 * passed / measured if measured else 0.0,
        total_duration_ms=sum(result.execution_time_ms for result in results),
        total_turns=turns_total,
        passed_turns=turns_passed,
        errored_turns=turns_errored,
        metrics_evaluated=counts,
        average_scores={name: fmean(values) for name, values in scores.items()},
    )
