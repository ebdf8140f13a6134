"""Making the page data smaller without losing anything: what every column, repeat or turn
repeats is written once and put back by page.js on load.

- `share_turn_text`: a turn's question and expected answer are the same for every model and
  every repeat (two models: each written twice otherwise).
- `share_metric_definitions`: a metric's name, kind, threshold and judge model are the
  suite's configuration, the same on every turn that runs it; a turn's metric names its
  definition by index (`x`) in the page's `metrics` table and keeps only what it measured.
  About 11% of the sample's page data.
"""

from __future__ import annotations

from typing import Any

#: The keys of a metric (data.py's short names) that are its definition, in table order.
DEFINITION_KEYS = ("n", "k", "th", "m")


def _entries(run: dict[str, Any]) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(case, entry) for each case of a run and each of its repeats."""
    return [(case, entry) for case in run["cases"] for entry in [case, *case.get("more", [])]]


def share_metric_definitions(runs: list[dict[str, Any]]) -> list[list[Any]]:
    """Replace each metric's definition keys by `x`, the index of its row in the returned
    table (rows `[name, kind, threshold, judge model]`, null where unset)."""
    table: dict[tuple[Any, ...], int] = {}
    for run in runs:
        for _case, entry in _entries(run):
            for turn in entry["turns"]:
                for metric in turn.get("metrics", ()):
                    key = tuple(metric.pop(k, None) for k in DEFINITION_KEYS)
                    metric["x"] = table.setdefault(key, len(table))
    return [list(key) for key in table]


def share_turn_text(runs: list[dict[str, Any]]) -> None:
    """Leave out a turn's `input` / `truth` where they equal the same turn of the first
    column's first run (page.js puts them back on load): with two models or five repeats the
    page would otherwise carry every question and expected answer two or five times. A truth
    that is absent where the reference has one is kept as an explicit null."""
    if not runs:
        return
    reference: dict[tuple[int, int | None], dict[str, Any]] = {}
    for case in runs[0]["cases"]:
        for turn in case["turns"]:
            reference[(case["i"], turn.get("t"))] = turn
    for place, run in enumerate(runs):
        for case, entry in _entries(run):
            if entry is case and place == 0:
                continue  # the reference itself
            for turn in entry["turns"]:
                ref = reference.get((case["i"], turn.get("t")))
                if ref is None:
                    continue
                if turn["input"] == ref["input"]:
                    del turn["input"]
                truth = turn.get("truth")
                if truth is not None and truth == ref.get("truth"):
                    del turn["truth"]
                elif truth is None and "truth" in ref:
                    turn["truth"] = None
