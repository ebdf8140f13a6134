"""The statistics block of a comparison's text and Markdown (docs/reports.md, "Paired
comparison"): per model the paired finding in words, then each side's cost and speed —
tokens, cost, turn time p50 / p95."""

from __future__ import annotations

from holodeck_lsp.reports.run.view import usd
from holodeck_lsp.schema.comparison import Comparison, SideFigures


def statistics_lines(comparison: Comparison) -> list[str]:
    lines = []
    several = len(comparison.statistics) > 1
    for figures in comparison.statistics:
        whose = f"[{figures.model}] " if several and figures.model else ""
        lines.append(f"{whose}{figures.summary}")
    base, head = comparison.base_figures, comparison.head_figures
    if base is not None and head is not None and (base.turns or head.turns):
        lines.append(f"cost and speed: base {figures_text(base)}; head {figures_text(head)}")
    return ["", *lines] if lines else []


def figures_text(figures: SideFigures) -> str:
    parts = [f"{figures.tokens:,} tokens" if figures.tokens is not None else "tokens unknown"]
    parts.append(usd(figures.cost_usd) if figures.cost_usd is not None else "cost unknown")
    p50, p95 = figures.latency_p50_ms, figures.latency_p95_ms
    if p50 is not None and p95 is not None:
        parts.append(f"turn p50 {p50 / 1000:.2f} s, p95 {p95 / 1000:.2f} s")
    return ", ".join(parts)
