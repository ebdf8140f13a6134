"""checker/import_source.py: the `# <dataset>: <id> (<detail>)` comment importers write above
a case, written and read back, and the case it belongs to found in a parsed file."""

from __future__ import annotations

import pytest

from holodeck_lsp.checker.import_source import (
    ImportSource,
    case_source,
    parse_source_comment,
    source_comment,
)
from holodeck_lsp.checker.yaml_document import parse_yaml


def test_a_comment_round_trips() -> None:
    line = source_comment("convfinqa", "Single_MRO/2007/page_134.pdf-1", "dev")
    assert line == "# convfinqa: Single_MRO/2007/page_134.pdf-1 (dev)"
    assert parse_source_comment("    " + line) == ImportSource(
        "convfinqa", "Single_MRO/2007/page_134.pdf-1", "dev"
    )
    assert parse_source_comment("# bfcl: multi_turn_base_0 (base)") == ImportSource(
        "bfcl", "multi_turn_base_0", "base"
    )


@pytest.mark.parametrize(
    "line",
    ["# Note: see the table", "# convfinqa: two words (dev)", "name: x", "# convfinqa: A/1"],
)
def test_ordinary_comments_are_not_sources(line: str) -> None:
    assert parse_source_comment(line) is None


def test_an_id_with_a_space_cannot_be_written() -> None:
    with pytest.raises(ValueError, match="cannot write"):
        source_comment("convfinqa", "two words", "dev")


AGENT = """\
name: x
test_cases:
  # convfinqa: A/1 (dev)
  - name: first
    input: "q"
  - name: second
    input: "q"
  # bfcl: multi_turn_base_3 (base)
  - input: "q"
    name: third
"""


def test_the_comment_directly_above_a_case_is_its_source() -> None:
    document = parse_yaml(AGENT)
    sources = [case_source(document.text, document.root, index) for index in range(4)]
    assert sources == [
        ImportSource("convfinqa", "A/1", "dev"),
        None,  # the comment above `second` is the first case's last line, not a source
        ImportSource("bfcl", "multi_turn_base_3", "base"),
        None,  # no such case
    ]
