"""Folding ranges: each top-level block, each test case and each of its turns (lines only, so
no position-encoding conversion is needed). From the parsed YAML; none when it does not
parse."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.guard import answer_or
from holodeck_lsp.server.request_work import off_loop

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node


def _last_line(node: Node, lines: Sequence[str]) -> int:
    """The last line with text of `node`: a block node ends where the next one starts (column
    0 of the next line, or the indentation before the next `- ` item)."""
    end_line: int = node.end_mark.line
    column: int = node.end_mark.column
    ends_before_text = column == 0 or end_line >= len(lines) or not lines[end_line][:column].strip()
    if end_line > node.start_mark.line and ends_before_text:
        return end_line - 1
    return end_line


def _fold(start: Node, end: Node, lines: Sequence[str]) -> types.FoldingRange | None:
    first, last = start.start_mark.line, _last_line(end, lines)
    return types.FoldingRange(start_line=first, end_line=last) if last > first else None


def folding_ranges(root: Node | None, text: str) -> list[types.FoldingRange]:
    """A fold per top-level entry; per case and turn of the `test_cases:` the checker reads
    (`suite_locator`: the last duplicate wins)."""
    from ruamel.yaml.nodes import MappingNode

    from holodeck_lsp.checker.suite_locator import case_nodes, turn_nodes

    if not isinstance(root, MappingNode):
        return []
    lines = text.splitlines()
    ranges = [_fold(key, value, lines) for key, value in root.value]
    for case in case_nodes(root):
        ranges.append(_fold(case, case, lines))
        ranges.extend(_fold(turn, turn, lines) for turn in turn_nodes(case) or [])
    return [item for item in ranges if item is not None]


def register(server: HolodeckServer) -> None:
    parsed_documents(server)  # parse each version in the background as it arrives

    @server.feature(types.TEXT_DOCUMENT_FOLDING_RANGE)
    @answer_or(list, "foldingRange")
    async def folding_range(params: types.FoldingRangeParams) -> list[types.FoldingRange]:
        parsed = await parsed_documents(server).get(params.text_document.uri)
        if parsed is None:
            return []
        root, text = parsed.document.root, parsed.document.text
        return await off_loop(lambda: folding_ranges(root, text))
