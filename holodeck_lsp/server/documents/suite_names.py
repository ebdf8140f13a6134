"""Where a suite names its tools and its cases, for references, rename, workspace symbols and
semantic tokens: a tool's `name:` under `tools:`, every `expected_tools` entry (a bare name or
an entry's `name:`, on a case or on one of its turns) and every case's `name:`.

Found in composed YAML node trees with `suite_locator` (the loader's rule: the last duplicate
key wins), so an agent file and a `test_cases_file` include (either form) are read alike. A
pure function of the nodes — no I/O, no schema. Columns are code points.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.checker.suite_locator import case_nodes, scalar_text, turn_nodes, value_of
from holodeck_lsp.server.documents.name_kinds import NameKind

TOOLS_KEY = "tools"
EXPECTED_KEY = "expected_tools"


@dataclass(frozen=True, slots=True)
class NameSpan:
    """One written name: its text and where the text itself is (quotes excluded)."""

    kind: NameKind
    text: str
    line: int
    start: int
    end: int
    #: The case it belongs to (its index in its file's suite); None for a declared tool.
    case: int | None = None


def text_span(node: Node) -> tuple[int, int, int] | None:
    """(line, first column, end column) of a one-line scalar's text, its quotes left out. None
    for anything else (a block or multi-line scalar is not a name we can edit in place)."""
    if not isinstance(node, ScalarNode) or not isinstance(node.value, str):
        return None
    start, end = node.start_mark, node.end_mark
    if start.line != end.line or node.style in ("|", ">"):
        return None
    quoted = node.style in ('"', "'")
    first, last = start.column + quoted, end.column - quoted
    # A quoted name with escapes is written longer than its text: not a plain span to edit.
    if quoted and last - first != len(node.value):
        return None
    return start.line, first, last


def _span(kind: NameKind, node: Node, case: int | None) -> NameSpan | None:
    found = text_span(node)
    if found is None:
        return None
    assert isinstance(node, ScalarNode)
    return NameSpan(kind, str(node.value), found[0], found[1], found[2], case)


def _expected(owner: Node, case: int) -> Iterator[NameSpan]:
    entries = value_of(owner, EXPECTED_KEY)
    if not isinstance(entries, SequenceNode):
        return
    for item in entries.value:
        node = item
        if isinstance(item, MappingNode):
            named = scalar_text(item, "name")
            if named is None:
                continue
            node = named[0]
        span = _span(NameKind.EXPECTED_TOOL, node, case)
        if span is not None:
            yield span


def suite_names(root: Node | None) -> list[NameSpan]:
    """Every declared tool name, expected tool name and case name in a file, in file order."""
    found: list[NameSpan] = []
    if isinstance(root, MappingNode):
        tools = value_of(root, TOOLS_KEY)
        if isinstance(tools, SequenceNode):
            for tool in tools.value:
                named = scalar_text(tool, "name")
                span = None if named is None else _span(NameKind.TOOL, named[0], None)
                if span is not None:
                    found.append(span)
    for index, case in enumerate(case_nodes(root)):
        named = scalar_text(case, "name")
        span = None if named is None else _span(NameKind.CASE, named[0], index)
        if span is not None:
            found.append(span)
        found.extend(_expected(case, index))
        for turn in turn_nodes(case) or []:
            found.extend(_expected(turn, index))
    found.sort(key=lambda span: (span.line, span.start))
    return found


def matches_tool(expected: str, tool: str) -> bool:
    """HoloDeck's rule: an expected name matches a called tool whose name contains it."""
    return bool(expected) and expected in tool
