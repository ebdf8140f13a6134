"""`node_at`: the agent path under a cursor and whether it is on a key or a value."""

from __future__ import annotations

import pytest

from holodeck_lsp.checker.yaml_document import parse_yaml
from holodeck_lsp.server.documents.node_at import node_at

TEXT = """\
name: demo
test_cases:
  - name: one
    turns:
      - input: "hi"
      - input: "sum?"
        expected_tools:
          - add
          - name: subtract
            args:
              a:
                fuzzy: "60.94"
              b: 3
"""


def at(line: int, character: int) -> tuple[tuple[str | int, ...], bool] | None:
    found = node_at(parse_yaml(TEXT).root, line, character)
    return None if found is None else (found.path, found.on_key)


@pytest.mark.parametrize(
    ("line", "character", "expected"),
    [
        (0, 0, (("name",), True)),
        (0, 4, (("name",), True)),  # right after the key: still on it
        (0, 7, (("name",), False)),
        (2, 6, (("test_cases", 0, "name"), True)),
        (2, 12, (("test_cases", 0, "name"), False)),
        (4, 18, (("test_cases", 0, "turns", 0, "input"), False)),
        (7, 12, (("test_cases", 0, "turns", 1, "expected_tools", 0), False)),
        (8, 19, (("test_cases", 0, "turns", 1, "expected_tools", 1, "name"), False)),
        (10, 14, (("test_cases", 0, "turns", 1, "expected_tools", 1, "args", "a"), True)),
        (
            11,
            17,
            (("test_cases", 0, "turns", 1, "expected_tools", 1, "args", "a", "fuzzy"), True),
        ),
        (
            11,
            25,
            (("test_cases", 0, "turns", 1, "expected_tools", 1, "args", "a", "fuzzy"), False),
        ),
        (12, 17, (("test_cases", 0, "turns", 1, "expected_tools", 1, "args", "b"), False)),
    ],
)
def test_paths(line: int, character: int, expected: tuple[object, bool]) -> None:
    assert at(line, character) == expected


def test_outside_the_document_is_nothing() -> None:
    assert at(40, 0) is None
    assert node_at(None, 0, 0) is None


def test_code_points_past_astral_characters() -> None:
    text = 'a: "😀😀"\nb: x\n'
    found = node_at(parse_yaml(text).root, 0, 5)
    assert found is not None and found.path == ("a",) and not found.on_key


def test_empty_value_is_the_mapping_key() -> None:
    found = node_at(parse_yaml("a:\nb: 1\n").root, 0, 1)
    assert found is not None and found.path == ("a",) and found.on_key
