"""Hover, document symbols, folding ranges and go to definition, over stdio against the real
server: on a file with validation errors (they read the parsed YAML, not the validated agent),
with an astral character before the hovered text (UTF-16 positions), and on text that does not
parse (no answer, no error)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, initialize, open_file, uri, wait_for

TOOLS = '''\
"""Tools."""


def subtract(a: float, b: float) -> float:
    """Return a minus b."""
    return a - b
'''

GRADERS = '''\
def exact(test_case, result):
    """Pass when the answer is exact."""
    return 1.0
'''

AGENT = """\
name: nav
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
tools:
  - name: subtract
    type: function
    description: "Return a minus b."
    file: tools.py
    function: subtract
evaluations:
  metrics:
    - type: standard
      metric: numeric
      absolute_tolerance: 0.01
    - type: code
      grader: graders:exact
test_cases:
  - name: "😀 first"
    turns:
      - input: "what was the weighted average exercise price per share in 2007?"
        ground_truth: "60.94"
      - input: "😀 and the change?"
        ground_truth: 5
        expected_tools:
          - name: subtract
            args:
              a: {fuzzy: "60.94"}
              b: 25.14
  - input: "single"
    ground_truth: "x"
"""


def lines() -> list[str]:
    return AGENT.split("\n")


def position(needle: str, occurrence: int = 0, offset: int = 0) -> types.Position:
    """The UTF-16 position of `needle` (its n-th line), plus `offset` code points."""
    found = [(n, text) for n, text in enumerate(lines()) if needle in text][occurrence]
    line, text = found
    prefix = text[: text.index(needle) + offset]
    return types.Position(line=line, character=len(prefix.encode("utf-16-le")) // 2)


async def opened(client: LanguageClient, tmp_path: Path) -> str:
    await initialize(client, root=tmp_path)
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "graders.py").write_text(GRADERS, encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    document = open_file(client, agent)
    # The file has a validation error (ground_truth: 5): the features still work.
    published = await wait_for(client, document)
    assert [d.code for d in published.diagnostics] == ["HD102"]
    return document


async def hover_text(client: LanguageClient, document: str, where: types.Position) -> str | None:
    result = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(document), position=where)
    )
    if result is None:
        return None
    assert isinstance(result.contents, types.MarkupContent)
    assert result.contents.kind == types.MarkupKind.Markdown
    return result.contents.value


async def test_hover(client: LanguageClient, tmp_path: Path) -> None:
    document = await opened(client, tmp_path)

    async def hover(needle: str, occurrence: int = 0, offset: int = 0) -> str:
        text = await hover_text(client, document, position(needle, occurrence, offset))
        assert text is not None, needle
        return text

    field = await hover("absolute_tolerance")
    assert "**`absolute_tolerance`**: `number`" in field and "Default: `1e-06`" in field
    assert "`list of (text | mapping (ExpectedTool))`" in await hover("expected_tools")
    fuzzy = await hover("fuzzy")
    assert "not edit distance" in fuzzy and "U+202F" in fuzzy and "÷100" in fuzzy
    assert "**full** match" not in fuzzy
    literal = await hover("25.14", offset=1)
    assert "literal argument" in literal and "`true` ≠ `1`" in literal
    tool = await hover("subtract", occurrence=2, offset=2)  # the expected tool's name
    assert "**tool `subtract`** (function)" in tool
    assert "def subtract(a: float, b: float) -> float" in tool and "Return a minus b." in tool
    grader = await hover("graders:exact", offset=9)
    assert "def exact(test_case, result)" in grader and "Pass when the answer is exact." in grader
    metric = await hover("metric: numeric", offset=10)
    assert "absolute_tolerance" in metric and "Set here: `absolute_tolerance: 0.01`" in metric
    # After an astral character (two UTF-16 units): the position is still the right value.
    assert "What the user says" in await hover("and the change", offset=3)
    assert await hover_text(client, document, types.Position(line=40, character=0)) is None


async def test_symbols_and_folding(client: LanguageClient, tmp_path: Path) -> None:
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

    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=identifier)
    )
    assert folds is not None
    spans = {(f.start_line, f.end_line) for f in folds}
    assert (19, 32) in spans  # test_cases:
    assert (20, 30) in spans and (31, 32) in spans  # the two cases
    assert (22, 23) in spans and (24, 30) in spans  # the turns
    assert (6, 11) in spans  # tools:


async def test_definition(client: LanguageClient, tmp_path: Path) -> None:
    document = await opened(client, tmp_path)

    async def goto(needle: str, occurrence: int = 0, offset: int = 0) -> types.Location | None:
        result = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(document),
                position=position(needle, occurrence, offset),
            )
        )
        assert result is None or isinstance(result, types.Location)
        return result

    def_subtract = types.Range(
        start=types.Position(line=3, character=4), end=types.Position(line=3, character=12)
    )
    for needle, occurrence in (("subtract", 0), ("subtract", 1), ("subtract", 2)):
        location = await goto(needle, occurrence, offset=1)
        assert location is not None, (needle, occurrence)
        assert location.uri == uri(tmp_path / "tools.py")
        assert location.range == def_subtract
    grader = await goto("graders:exact", offset=2)
    assert grader is not None and grader.uri == uri(tmp_path / "graders.py")
    assert grader.range.start == types.Position(line=0, character=4)
    assert await goto("gpt-4o-mini", offset=1) is None


async def test_unparseable_text_gets_no_answers(client: LanguageClient, tmp_path: Path) -> None:
    document = await opened(client, tmp_path)
    change_file(client, document, AGENT + "  - [unclosed\n", version=2)
    identifier = types.TextDocumentIdentifier(document)
    assert await hover_text(client, document, position("fuzzy")) is None
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(text_document=identifier)
    )
    assert not symbols
    folds = await client.text_document_folding_range_async(
        types.FoldingRangeParams(text_document=identifier)
    )
    assert not folds
    definition = await client.text_document_definition_async(
        types.DefinitionParams(text_document=identifier, position=position("subtract", 2, 1))
    )
    assert definition is None
    # Fixed again: answers come back.
    change_file(client, document, AGENT, version=3)
    assert await hover_text(client, document, position("fuzzy")) is not None
