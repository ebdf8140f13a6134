"""The report of a run of lanes (runner/execution/executor.py's last step): each case
session's result in report order — by model, then repeat, then file order, a resumed run's
kept results in their place — with the run's environment and each model's summary; and the
result of a case that did not run whole (abandoned after a cancel, crashed, not started)."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime

from holodeck_lsp import __version__
from holodeck_lsp.engine.case_grading import turn_specs
from holodeck_lsp.engine.rollup import multi_turn_result, single_turn_result, summarize
from holodeck_lsp.runner.execution.case_sessions import CANCELLED
from holodeck_lsp.runner.execution.events import CaseKey
from holodeck_lsp.runner.execution.work_plan import WorkPlan
from holodeck_lsp.runner.selection import PlannedCase
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult


def ordered_results(
    work: WorkPlan,
    labels: Sequence[str],
    finished: Mapping[CaseKey, TestResult],
    tasks: Mapping[CaseKey, asyncio.Task[TestResult | None]],
) -> list[TestResult]:
    """Each session's result in report order, stamped with its model and repeat; a resumed
    run's kept results in their place; a case a budget did not start left out."""
    return [
        _stamped(result, labels[item.lane], item.key[2])
        for item in work.in_report_order()
        if (
            result := (
                finished[item.key]
                if item.key in finished
                else result_of(tasks[item.key], item.case)
            )
        )
        is not None
    ]


def lanes_report(
    *,
    agent_name: str,
    config_path: str,
    started: str,
    results: list[TestResult],
    environment: dict[str, str],
    models: list[str],
    repeat: int,
) -> TestReport:
    """The report, with the run's summary and each model's."""
    return TestReport(
        agent_name=agent_name,
        agent_config_path=config_path,
        results=results,
        summary=summarize(results),
        timestamp=started,
        holodeck_version=f"holodeck-lsp {__version__}",
        environment=environment,
        models=models,
        repeats=repeat,
        model_summaries={
            model: summarize([result for result in results if result.model == model])
            for model in models
        },
    )


def _stamped(result: TestResult, model: str, repeat: int | None) -> TestResult:
    """The result with the model (and repeat) that produced it."""
    if result.model == model and result.repeat == repeat:
        return result
    return result.model_copy(update={"model": model, "repeat": repeat})


def result_of(task: asyncio.Task[TestResult | None], item: PlannedCase) -> TestResult | None:
    """The case's result (None: a budget did not start it); if even the case's own guard
    failed, a failed result saying why; abandoned after a cancel: not run."""
    if task.cancelled() or not task.done():
        return _skipped(item, f"skipped: {CANCELLED}")
    error = task.exception()
    if error is None:
        return task.result()
    return _skipped(item, f"skipped: the case crashed: {type(error).__name__}: {error}")


def _skipped(item: PlannedCase, reason: str) -> TestResult:
    """Every turn of the case skipped for `reason`."""
    specs = turn_specs(item.case)
    first = item.graded_turn or 0
    turns = [
        TurnResult(turn_index=spec.index, input=spec.input, errors=[reason], skipped=True)
        for spec in specs[first : item.sent_turns]
    ]
    if item.case.turns is None:
        return single_turn_result(item.case.name, item.index, turns[0], now_stamp())
    return multi_turn_result(item.case.name, item.index, turns, now_stamp())


def now_stamp() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")


def not_started(item: PlannedCase, why: str) -> TestResult:
    return _skipped(item, f"skipped: not started: {why}")
