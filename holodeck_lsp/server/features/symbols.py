"""Document symbols: the agent's outline. Top-level keys; under `test_cases:` each case (its
name, or `#i`) with its turns; under `tools:` each tool by name. Built from the parsed YAML
nodes, so a file with validation errors still has an outline; one that does not parse has
none. Every top-level key is listed, a repeated one too, but cases, turns and tools are those
the checker reads (`suite_locator`: the last duplicate wins)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.guard import answer_or
from holodeck_lsp.server.request_work import off_loop

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

    from holodeck_lsp.server.documents.parsed import Parsed
    from holodeck_lsp.server.documents.positions import PositionConverter

#: How much of a turn's input its symbol shows.
INPUT_PREVIEW = 40


def shorten(text: str, limit: int = INPUT_PREVIEW) -> str:
    """One line of at most `limit` characters (an ellipsis marks a cut)."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1].rstrip() + "…"


def _range(converter: PositionConverter, start: Node, end: Node | None = None) -> types.Range:
    last = end if end is not None else start
    start_line, start_char = converter.to_client(start.start_mark.line, start.start_mark.column)
    end_line, end_char = converter.to_client(last.end_mark.line, last.end_mark.column)
    return types.Range(
        start=types.Position(line=start_line, character=start_char),
        end=types.Position(line=end_line, character=end_char),
    )


def outline(root: Node | None, converter: PositionConverter) -> list[types.DocumentSymbol]:
    """The hierarchical outline of an agent document."""
    from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode

    from holodeck_lsp.checker.suite_locator import entry

    if not isinstance(root, MappingNode):
        return []
    symbols: list[types.DocumentSymbol] = []
    for key, value in root.value:
        if not isinstance(key, ScalarNode):
            continue
        name = str(key.value) or "(empty key)"
        children: list[types.DocumentSymbol] = []
        detail: str | None = None
        # Children only under the entry the checker reads (not an earlier duplicate).
        found = entry(root, name) if name in ("test_cases", "tools") else None
        read = found is not None and found[0] is key and isinstance(value, SequenceNode)
        if read and name == "test_cases":
            children = [_case_symbol(i, case, converter) for i, case in enumerate(value.value)]
            detail = f"{len(children)} test case" + ("" if len(children) == 1 else "s")
        elif read and name == "tools":
            children = [_tool_symbol(i, tool, converter) for i, tool in enumerate(value.value)]
        elif isinstance(value, ScalarNode):
            detail = shorten(str(value.value))
        kind = (
            types.SymbolKind.Array
            if isinstance(value, SequenceNode)
            else types.SymbolKind.Object
            if isinstance(value, MappingNode)
            else types.SymbolKind.Property
        )
        symbols.append(
            types.DocumentSymbol(
                name=name,
                detail=detail,
                kind=kind,
                range=_range(converter, key, value),
                selection_range=_range(converter, key),
                children=children or None,
            )
        )
    return symbols


def _case_symbol(index: int, case: Node, converter: PositionConverter) -> types.DocumentSymbol:
    from holodeck_lsp.checker.suite_locator import scalar_text, turn_nodes

    named = scalar_text(case, "name")
    name = named[1] if named is not None and named[1].strip() else f"#{index}"
    turns = turn_nodes(case)
    children: list[types.DocumentSymbol] = []
    if turns is not None:
        for number, turn in enumerate(turns):
            said = scalar_text(turn, "input")
            label = f"turn {number}: {shorten(said[1])}" if said else f"turn {number}"
            children.append(
                types.DocumentSymbol(
                    name=label,
                    kind=types.SymbolKind.Event,
                    range=_range(converter, turn),
                    selection_range=_range(converter, said[0] if said else turn),
                )
            )
        count = len(children)
        detail = f"multi-turn, {count} turn" + ("" if count == 1 else "s")
    else:
        detail = "single-turn"
    return types.DocumentSymbol(
        name=name,
        detail=detail,
        kind=types.SymbolKind.Class,
        range=_range(converter, case),
        selection_range=_range(converter, named[0] if named is not None else case),
        children=children or None,
    )


def _tool_symbol(index: int, tool: Node, converter: PositionConverter) -> types.DocumentSymbol:
    from holodeck_lsp.checker.suite_locator import scalar_text

    named = scalar_text(tool, "name")
    kind = scalar_text(tool, "type")
    return types.DocumentSymbol(
        name=named[1] if named is not None and named[1].strip() else f"#{index}",
        detail=kind[1] if kind is not None else None,
        kind=types.SymbolKind.Function,
        range=_range(converter, tool),
        selection_range=_range(converter, named[0] if named is not None else tool),
    )


def register(server: HolodeckServer) -> None:
    parsed_documents(server)  # parse each version in the background as it arrives
    #: uri -> the outline of its latest parse (editors ask again for the same version often).
    outlines: dict[str, tuple[Parsed, list[types.DocumentSymbol]]] = {}

    @server.feature(types.TEXT_DOCUMENT_DOCUMENT_SYMBOL)
    @answer_or(list, "documentSymbol")
    async def document_symbol(params: types.DocumentSymbolParams) -> list[types.DocumentSymbol]:
        parsed = await parsed_documents(server).get(params.text_document.uri)
        if parsed is None:
            outlines.pop(params.text_document.uri, None)
            return []
        cached = outlines.get(parsed.uri)
        if cached is None or cached[0] is not parsed:
            root, converter = parsed.document.root, parsed.converter
            cached = outlines[parsed.uri] = (
                parsed,
                await off_loop(lambda: outline(root, converter)),
            )
        return cached[1]
