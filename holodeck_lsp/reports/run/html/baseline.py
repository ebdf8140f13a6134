"""A baseline on the HTML page: what a `Comparison` (schema/comparison.py, computed by
`compare`) found, placed on the page's grid.

The comparison names a turn by (model, case name, turn index); the page's cells are (column,
case position, turn index). Placing them here, once, keeps page.js from guessing: a change
whose turn is not in this run's grid (removed, or a model this run did not run) keeps
`"i": null` and the page lists it under the summary line instead of losing it.
"""

from __future__ import annotations

from typing import Any

from holodeck_lsp.reports.run.comparison_figures import statistics_lines
from holodeck_lsp.schema.comparison import Comparison, SideOfTurn, TurnChange


def baseline_data(
    comparison: Comparison | None, runs: list[dict[str, Any]]
) -> dict[str, Any] | None:
    """The page's `baseline`: labels, counts by kind, notes and one entry per change."""
    if comparison is None:
        return None
    counts: dict[str, int] = {}
    for change in comparison.changes:
        counts[change.kind] = counts.get(change.kind, 0) + 1
    return {
        "label": comparison.base.label,
        "head": comparison.head.label,
        "base_models": list(comparison.base.models),
        "counts": counts,
        "unchanged_passing": comparison.unchanged_passing,
        "unchanged_failing": comparison.unchanged_failing,
        "threshold": comparison.score_threshold,
        "notes": list(comparison.notes),
        # The paired statistics and each side's cost and speed, in words (docs/reports.md,
        # "Paired comparison").
        "statistics": [line for line in statistics_lines(comparison) if line],
        "changes": [_change(change, runs) for change in comparison.changes],
    }


def _change(change: TurnChange, runs: list[dict[str, Any]]) -> dict[str, Any]:
    column = _column(change.model, runs)
    position = None
    if column is not None:
        position = next(
            (case["i"] for case in runs[column]["cases"] if case["name"] == change.case), None
        )
    out: dict[str, Any] = {
        "k": change.kind,
        "m": column if position is not None else None,
        "i": position,
        "t": change.turn_index,
        "case": change.case,
        "model": change.model,
        "base": _side(change.base),
        "head": _side(change.head),
    }
    if change.input:
        out["input"] = change.input
    deltas = [
        {
            "n": delta.metric_name,
            "k": delta.kind,
            "b": delta.base_score,
            "h": delta.head_score,
            "d": delta.delta,
        }
        for delta in change.metric_deltas
    ]
    if deltas:
        out["deltas"] = deltas
    return out


def _column(model: str | None, runs: list[dict[str, Any]]) -> int | None:
    for place, run in enumerate(runs):
        if model is not None and run["model"] == model:
            return place
    # A single-model comparison may name no model, or one this report only has in its
    # environment: with one column, that column is the turn's.
    return 0 if len(runs) == 1 and (model is None or runs[0]["model"] is None) else None


def _side(side: SideOfTurn | None) -> dict[str, Any] | None:
    if side is None:
        return None
    verdict = "skipped" if side.passed is None else "passed" if side.passed else "failed"
    out: dict[str, Any] = {"v": verdict, "passes": side.passes, "runs": side.runs}
    if side.reason:
        out["reason"] = side.reason
    return out
