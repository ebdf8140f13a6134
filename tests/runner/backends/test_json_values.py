"""Tool values as reports and cassettes store them: one conversion, so live == replayed."""

from __future__ import annotations

import datetime
import json
from typing import Any

import pytest

from holodeck_lsp.runner.backends.json_values import json_safe


def test_json_values_pass_through() -> None:
    value = {"a": [1, 2.5, None, True], "b": {"c": "text"}}
    assert json_safe(value) == value


def test_values_come_back_as_json_reads_them() -> None:
    # What a cassette replays: tuples are lists, integer keys are strings.
    assert json_safe((1, 2)) == [1, 2]
    assert json_safe({1: "one"}) == {"1": "one"}


def test_unknown_objects_become_text_where_they_sit() -> None:
    when = datetime.date(2024, 5, 1)
    assert json_safe({"when": when, "n": 3}) == {"when": "2024-05-01", "n": 3}
    assert json_safe(when) == "2024-05-01"


@pytest.mark.parametrize("make", [lambda: _cycle(), lambda: {(1, 2): "tuple key"}])
def test_values_json_cannot_hold_become_text(make: Any) -> None:
    value = make()
    safe = json_safe(value)
    assert isinstance(safe, str)
    json.dumps(safe)  # storable


def _cycle() -> list[Any]:
    items: list[Any] = [1]
    items.append(items)
    return items
