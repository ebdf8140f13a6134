"""The matrix table's statistics rows (commands/console/matrix_table.py): the pass rate with its
95 % interval, pass^k with repeats, turn time, and the paired comparison against the first
model — on a report of two models and three repeats built from result models."""

from __future__ import annotations

from holodeck_lsp.commands.console.matrix_table import matrix_lines
from holodeck_lsp.schema.results import TestReport
from tests.engine.test_run_statistics import MODELS, _result, report  # noqa: F401  (fixture)


def test_rows_and_paired_lines(report: TestReport) -> None:  # noqa: F811
    text = "\n".join(matrix_lines(report))
    assert "pass rate [95%]" in text and "75.0% [" in text and "25.0% [" in text
    assert "pass^k (k=1…3)" in text and "75% · 58% · 50%" in text
    assert "turn time" in text and "p50 0.70 s · p95 1.00 s" in text
    assert f"Paired against {MODELS[0]}" in text
    assert "anthropic:claude-b passes" in text
