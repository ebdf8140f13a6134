"""The results list a run prints at its end, above the totals: per case its verdict and
its turns' marks, per failing turn one line per view that failed it (its first error or
tool assertion, then each failing metric) in the reports' wording; for a model
matrix or repeats, the table of matrix_table.py and the failures below it."""

from __future__ import annotations

import sys

from holodeck_lsp.commands.console.marks import Marks
from holodeck_lsp.commands.console.matrix_table import matrix_lines, wants_matrix
from holodeck_lsp.reports.run.view import Block, error_reason, failing_views, skip_reason
from holodeck_lsp.schema.results import TestReport, TestResult
from holodeck_lsp.terminal import PLAIN, Palette


def results_lines(
    report: TestReport,
    marks: Marks | None = None,
    palette: Palette = PLAIN,
    *,
    verbose: bool = False,
) -> list[str]:
    """Per case: its verdict and its turns' marks; per failing turn: a line per failing view. (The
    command prints the totals line after it.) A model matrix or repeats: the table of
    commands/console/matrix_table instead."""
    marks = marks or Marks(sys.stdout)
    if wants_matrix(report):
        marked = (marks.passed, marks.failed)
        table = matrix_lines(report, verbose=verbose, palette=palette, marks=marked)
        return table + _matrix_failures(report, palette)
    lines = ["", "Results:"]
    for result in report.results:
        label = result.test_name or f"test_cases[{result.test_index}]"
        turns = result.turns or []
        row = " ".join(marks.of(turn) for turn in turns) if turns else ""
        verdict = palette.case_verdict(result.passed, result.errored, result.simulator_failed)
        lines.append(f"  {verdict}  {label}" + (f"  [{row}]" if row else ""))
        if not result.passed:
            lines += _failure_lines(result)
    return lines


#: Failed sessions a matrix summary explains before pointing at the report for the rest.
MATRIX_FAILURES_SHOWN = 20


def _matrix_failures(report: TestReport, palette: Palette) -> list[str]:
    """Below the table, why each failed session failed (case, model, repeat): the table says
    where the ✗ are, this says what went wrong, in the reports' wording."""
    failed = [result for result in report.results if not result.passed]
    if not failed:
        return []
    lines = ["", "Failures:"]
    for result in failed[:MATRIX_FAILURES_SHOWN]:
        label = result.test_name or f"test_cases[{result.test_index}]"
        where = f" [{result.model}]" if result.model and len(report.models) > 1 else ""
        again = f" #{result.repeat}" if result.repeat is not None else ""
        verdict = palette.case_verdict(False, result.errored, result.simulator_failed)
        lines.append(f"  {verdict}  {label}{where}{again}")
        lines += _failure_lines(result)
    hidden = len(failed) - MATRIX_FAILURES_SHOWN
    if hidden > 0:
        lines.append(f"  … and {hidden} more failed sessions (see the report for every one)")
    return lines


def _failure_lines(result: TestResult) -> list[str]:
    # The reports' own wording, so the console names the arg or value that differed too;
    # a line per failing view (expected_tools, each metric), so a turn failing the strict
    # view and a grader's view shows both, not just the first.
    if result.turns is None:
        return [f"      {reason}" for reason in _reasons(Block.of_case(result))]
    lines = [
        f"      turn {turn.turn_index}: {reason}"
        for turn in result.turns
        if not turn.passed
        for reason in _reasons(Block.of_turn(turn))
    ]
    simulation = result.simulation  # a simulated user's at_end checks and failure
    if simulation is not None and simulation.at_end is not None and not simulation.at_end.passed:
        lines += [f"      at end: {r}" for r in _reasons(Block.of_turn(simulation.at_end))]
    if simulation is not None and simulation.failure is not None:
        detail = _one_line(f"{simulation.failure}: {simulation.failure_detail}")
        lines.append(f"      simulated user: {detail}")
    return lines


def _reasons(block: Block) -> list[str]:
    if block.skipped:
        return [_one_line(skip_reason(block))]
    if block.errored:
        return [_one_line("errored (not measured): " + error_reason(block))]
    return [_one_line(reason) for reason in failing_views(block)]


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
