"""Walk the raw agent data (before or without successful validation) to the places that
checks beyond the schema look at, yielding each with its agent path.

Working on raw data means a grader typo or a lint is reported even when some other part of
the file is still invalid — all faults at once.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any

Path = tuple[str | int, ...]


def data_at(data: Any, path: Sequence[str | int]) -> Any:
    """The raw value at `path` (mapping keys and list indexes), or None when it is absent."""
    for element in path:
        if isinstance(data, Mapping) and isinstance(element, str):
            data = data.get(element)
        elif isinstance(data, list) and isinstance(element, int) and 0 <= element < len(data):
            data = data[element]
        else:
            return None
    return data


def _items(value: Any) -> Iterator[tuple[int, Any]]:
    if isinstance(value, list):
        yield from enumerate(value)


def iter_cases(data: Any) -> Iterator[tuple[Path, dict[str, Any]]]:
    if not isinstance(data, dict):
        return
    for index, case in _items(data.get("test_cases")):
        if isinstance(case, dict):
            yield ("test_cases", index), case


def iter_turn_like(data: Any) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Every mapping that can carry expected_tools / evaluations: cases, their turns and
    their simulated user's checks."""
    for case_path, case in iter_cases(data):
        yield case_path, case
        for index, turn in _items(case.get("turns")):
            if isinstance(turn, dict):
                yield (*case_path, "turns", index), turn
        yield from _simulated_checks(case_path, case.get("simulated_user"))


def _simulated_checks(case_path: Path, simulated: Any) -> Iterator[tuple[Path, dict[str, Any]]]:
    """A simulated user's check holders: `every_turn`, each `at_turn` entry, `at_end`."""
    if not isinstance(simulated, dict):
        return
    here = (*case_path, "simulated_user")
    for key in ("every_turn", "at_end"):
        if isinstance(simulated.get(key), dict):
            yield (*here, key), simulated[key]
    for index, checks in _items(simulated.get("at_turn")):
        if isinstance(checks, dict):
            yield (*here, "at_turn", index), checks


def iter_metrics(data: Any) -> Iterator[tuple[Path, dict[str, Any]]]:
    """Agent-level metrics, then each case's and each turn's."""
    if not isinstance(data, dict):
        return
    evaluations = data.get("evaluations")
    if isinstance(evaluations, dict):
        for index, metric in _items(evaluations.get("metrics")):
            if isinstance(metric, dict):
                yield ("evaluations", "metrics", index), metric
    for path, holder in iter_turn_like(data):
        for index, metric in _items(holder.get("evaluations")):
            if isinstance(metric, dict):
                yield (*path, "evaluations", index), metric


def iter_expected_tools(data: Any) -> Iterator[tuple[Path, Any]]:
    """Each expected_tools entry (a name string or a mapping) with its path."""
    for path, holder in iter_turn_like(data):
        for index, entry in _items(holder.get("expected_tools")):
            yield (*path, "expected_tools", index), entry


def declared_tools(data: Any) -> list[dict[str, Any]]:
    if not isinstance(data, dict):
        return []
    return [tool for _, tool in _items(data.get("tools")) if isinstance(tool, dict)]
