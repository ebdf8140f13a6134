"""The HTML page's statistics per column: the pass rate with its 95 % interval, pass^k and
turn time p50 / p95 (docs/reports.md, "Statistics"), put on each run's summary."""

from __future__ import annotations

from typing import Any

from holodeck_lsp.engine.comparison_statistics import matrix_comparisons
from holodeck_lsp.engine.run_statistics import (
    latency_text,
    pass_k_text,
    rate_text,
    run_statistics,
)
from holodeck_lsp.reports.run.html.matrix import Column
from holodeck_lsp.schema.results import TestReport


def add_statistics(report: TestReport, found: list[Column], runs: list[dict[str, Any]]) -> None:
    """Each column's pass rate with its 95 % interval, pass^k, turn time p50 / p95
    (docs/reports.md, "Statistics"), as text the page shows as it is."""
    figures = run_statistics(report)
    by_model = {model.model: model for model in figures.models}
    for run, column in zip(runs, found, strict=True):
        model = by_model.get(column.model)
        if model is None and len(figures.models) == 1:
            model = figures.models[0]
        if model is None:
            continue
        run["summary"]["stats"] = {
            "rate": rate_text(model.cases),
            "pass_hat_k": pass_k_text(model.pass_hat_k),
            "latency": latency_text(model),
            "p50_ms": model.latency_p50_ms,
            "p95_ms": model.latency_p95_ms,
        }


def paired_lines(report: TestReport) -> list[str]:
    """A model matrix's paired comparisons, each model against the first, in words."""
    return [figures.summary for figures in matrix_comparisons(report)]
