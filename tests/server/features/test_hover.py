"""textDocument/hover over stdio against the real server: fields, matchers, literal arguments,
tools, graders and metrics; UTF-16 positions after an astral character."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.features.navigation_agent import hover_text, opened, position


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
