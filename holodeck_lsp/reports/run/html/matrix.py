"""Several models and repeats on the HTML page: a report's results split into one column per
model (`TestResult.model`), each column's repeats of a case (`TestResult.repeat`) kept
together (compact.py writes the text the columns share once).

Why columns are built from the results, not from `TestReport.models` alone: an older report
(or a single-model run) names no model on its results, and a matrix run may hold a result
whose model is missing from `models`; every result must land in some column (nothing lost).
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from holodeck_lsp.reports.run.view import Case, cases
from holodeck_lsp.schema.results import TestReport


@dataclass(frozen=True, slots=True)
class Column:
    """One model's results: its cases in file order, each with its repeats (first run first)."""

    model: str | None
    groups: tuple[tuple[Case, ...], ...]

    def all_cases(self) -> Iterator[Case]:
        for group in self.groups:
            yield from group


def columns(report: TestReport) -> list[Column]:
    """One column per model, in `models` order, then models only the results name, then the
    results that name none (a single-model or older report: that is the only column)."""
    order: list[str | None] = list(dict.fromkeys(report.models))
    for result in report.results:
        if result.model not in order:
            order.append(result.model)
    if not order:
        order = [None]
    found = cases(report)
    out = []
    for model in order:
        mine = [case for case in found if case.result.model == model]
        out.append(Column(model=model, groups=_repeats(mine)))
    return out


def _repeats(found: list[Case]) -> tuple[tuple[Case, ...], ...]:
    by_position: dict[int, list[Case]] = {}
    for case in found:  # already in file order
        by_position.setdefault(case.position, []).append(case)
    return tuple(
        tuple(sorted(group, key=lambda case: case.result.repeat or 1))
        for group in by_position.values()
    )


def flaky_turns(group: tuple[Case, ...]) -> int:
    """Turns of a case that passed in some repeats and failed in others."""
    verdicts: dict[int | None, set[bool]] = {}
    for case in group:
        for block in case.blocks:
            if not block.skipped and not block.errored:
                verdicts.setdefault(block.turn_index, set()).add(block.passed)
    return sum(1 for seen in verdicts.values() if len(seen) == 2)
