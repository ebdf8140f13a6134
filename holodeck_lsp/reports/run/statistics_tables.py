"""The Markdown report's "Statistics" section (docs/reports.md, "Statistics"): each model's
pass rate with its 95 % interval, pass^k and pass@k over repeats, tokens, cost and turn time
p50 / p95, and for multi-turn suites the pass rate by turn index."""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from holodeck_lsp.engine.comparison_statistics import matrix_comparisons
from holodeck_lsp.engine.run_statistics import (
    latency_text,
    pass_k_text,
    rate_text,
    run_statistics,
)
from holodeck_lsp.reports.run.view import usd
from holodeck_lsp.schema.results import TestReport
from holodeck_lsp.schema.statistics import ModelStatistics


def statistics_markdown(report: TestReport) -> list[str]:
    figures = run_statistics(report)
    if not figures.suite.measured:
        return []
    models = figures.models
    header = ["Model", "Pass rate [95% interval]", "Cases"]
    repeats = any(model.pass_hat_k for model in models)
    if repeats:
        header += ["pass^k (k = 1…N)", "pass@k (k = 1…N)"]
    header += ["Tokens", "Cost", "Turn time"]
    rows = [_model_row(model, repeats) for model in models]
    lines = ["## Statistics", "", *_table(header, rows), ""]
    lines.append(
        "Intervals are 95 % Wilson intervals over case sessions; pass^k is the chance all k "
        'sessions of a case pass (docs: reports.md, "Statistics").'
    )
    lines.append("")
    paired = matrix_comparisons(report)
    if paired:
        first = report.models[0] if report.models else models[0].model
        lines += [f"### Paired against `{first}`", ""]
        lines += [f"- {figures.summary}" for figures in paired]
        lines.append("")
    indexes = sorted({t.turn_index for model in models for t in model.by_turn_index})
    if indexes:
        lines += ["### Pass rate by turn", ""]
        by_model = [{t.turn_index: t for t in model.by_turn_index} for model in models]
        turn_rows = [
            [f"turn {index}"]
            + [rate_text(rates[index]) if index in rates else "-" for rates in by_model]
            for index in indexes
        ]
        lines += _table(["Turn", *(_name(model) for model in models)], turn_rows)
        lines.append("")
    return lines


def _model_row(model: ModelStatistics, repeats: bool) -> list[str]:
    row = [_name(model), rate_text(model.cases), f"{model.cases.passed}/{model.cases.measured}"]
    if repeats:
        row += [pass_k_text(model.pass_hat_k) or "-", pass_k_text(model.pass_at_k) or "-"]
    row += [
        f"{model.tokens:,}" if model.tokens is not None else "-",
        usd(model.cost_usd) if model.cost_usd is not None else "-",
        latency_text(model),
    ]
    return row


def _name(model: ModelStatistics) -> str:
    return f"`{model.model}`" if model.model else "(the agent's model)"


def _table(header: Sequence[str], rows: Iterable[Sequence[str]]) -> list[str]:
    def cell(text: str) -> str:
        return text.replace("|", "\\|").replace("\n", " ")

    lines = ["| " + " | ".join(cell(h) for h in header) + " |"]
    lines.append("|" + "---|" * len(header))
    lines += ["| " + " | ".join(cell(c) for c in row) + " |" for row in rows]
    return lines
