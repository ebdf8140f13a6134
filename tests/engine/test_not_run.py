"""Cases a run never finished are `not run` (engine/rollup.py): counted apart from passed,
failed and errored, in the summary of a new report; a report written before the count read
as 0 not run."""

from __future__ import annotations

from holodeck_lsp.engine.rollup import cut_short, multi_turn_result, not_run, summarize
from holodeck_lsp.reports.run.view import case_status
from holodeck_lsp.schema.results import ReportSummary, TurnResult


def _turn(index: int, *, passed: bool = False, skipped: str | None = None) -> TurnResult:
    errors = [skipped] if skipped else []
    return TurnResult(
        turn_index=index, input=f"q{index}", passed=passed, errors=errors, skipped=bool(skipped)
    )


def test_cut_short_without_a_failure_is_not_run_and_with_one_is_failed() -> None:
    answered_then_cancelled = multi_turn_result(
        "a", 0, [_turn(0, passed=True), _turn(1, skipped="skipped: cancelled")]
    )
    never_started = multi_turn_result("b", 1, [_turn(0, skipped="skipped: not started: budget")])
    failed_then_cancelled = multi_turn_result(
        "c", 2, [_turn(0, passed=False), _turn(1, skipped="skipped: cancelled")]
    )
    passed = multi_turn_result("d", 3, [_turn(0, passed=True)])
    results = [answered_then_cancelled, never_started, failed_then_cancelled, passed]
    assert [not_run(r) for r in results] == [True, True, False, False]
    assert [cut_short(r) for r in results] == [True, True, True, False]
    assert [case_status(r) for r in results] == ["not run", "not run", "failed", "passed"]
    summary = summarize(results)
    assert (summary.passed, summary.failed, summary.not_run) == (1, 1, 2)
    assert summary.pass_rate == 50.0  # of the measured cases: not run ones are not measured


def test_an_older_summary_without_the_count_reads_as_none_not_run() -> None:
    old = {"total_tests": 3, "passed": 1, "failed": 2, "pass_rate": 33.3}
    assert ReportSummary.model_validate(old).not_run == 0
