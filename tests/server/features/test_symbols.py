"""textDocument/documentSymbol: the outline, over stdio against the real server and on node
trees (cases, turns and tools of the entries the checker reads: the last duplicate wins)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from holodeck_lsp.checker.yaml_document import compose
from holodeck_lsp.server.documents.positions import UTF32, PositionConverter
from holodeck_lsp.server.features.symbols import outline
from tests.server.features.navigation_agent import opened, position


async def test_symbols(client: LanguageClient, tmp_path: Path) -> None:
    document = await opened(client, tmp_path)
    identifier = types.TextDocumentIdentifier(document)
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=identifier)
    )
    assert symbols is not None
    top = {s.name: s for s in symbols if isinstance(s, types.DocumentSymbol)}
    assert list(top) == ["name", "model", "instructions", "tools", "evaluations", "test_cases"]
    cases = top["test_cases"].children or []
    assert [(c.name, c.detail) for c in cases] == [
        ("😀 first", "multi-turn, 2 turns"),
        ("#1", "single-turn"),
    ]
    turns = cases[0].children or []
    assert [t.name for t in turns] == [
        "turn 0: what was the weighted average exercise…",
        "turn 1: 😀 and the change?",
    ]
    # UTF-16: the selection of turn 1 (its input value) starts after `- input: `.
    assert turns[1].selection_range.start == position('"😀 and')
    assert [t.name for t in top["tools"].children or []] == ["subtract"]


DUPLICATED = """\
test_cases:
  - name: shadowed
tools:
  - name: old_tool
test_cases:
  - name: read
    turns:
      - input: dropped
    turns:
      - input: kept
tools:
  - name: new_tool
"""


def test_children_only_under_the_entries_the_checker_reads() -> None:
    symbols = outline(compose(DUPLICATED), PositionConverter(DUPLICATED, UTF32))
    assert [s.name for s in symbols] == ["test_cases", "tools", "test_cases", "tools"]
    assert [s.children for s in symbols[:2]] == [None, None]
    cases = symbols[2].children or []
    assert [c.name for c in cases] == ["read"]
    assert [t.name for t in cases[0].children or []] == ["turn 0: kept"]
    assert [t.name for t in symbols[3].children or []] == ["new_tool"]
