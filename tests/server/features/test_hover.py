"""textDocument/hover over stdio against the real server: fields, matchers, literal arguments,
tools, graders and metrics; UTF-16 positions after an astral character. One test per kind of
thing hovered, so a failure names what broke."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.features.navigation_agent import hover_text, opened, position
from tests.server.shared_server import own_folder, shared_client, shared_workspace

# One server for the module (tests/server/shared_server.py): each test opens the sample in
# its own folder.
workspace = shared_workspace("hover")
client = shared_client()
folder = own_folder()

Hover = Callable[..., Awaitable[str]]


async def hovering(client: LanguageClient, tmp_path: Path) -> Hover:
    """The sample document opened; `hover(needle, occurrence, offset)` its hover text."""
    document = await opened(client, tmp_path, initialized=True)

    async def hover(needle: str, occurrence: int = 0, offset: int = 0) -> str:
        text = await hover_text(client, document, position(needle, occurrence, offset))
        assert text is not None, needle
        return text

    return hover


async def test_a_field_shows_its_type_and_default(client: LanguageClient, folder: Path) -> None:
    hover = await hovering(client, folder)
    field = await hover("absolute_tolerance")
    assert "**`absolute_tolerance`**: `number`" in field
    assert "Default: `1e-06`" in field
    assert "`list of (text | mapping (ExpectedTool))`" in await hover("expected_tools")


async def test_matchers_explain_how_they_compare(client: LanguageClient, folder: Path) -> None:
    hover = await hovering(client, folder)
    fuzzy = await hover("fuzzy")
    assert "not edit distance" in fuzzy and "U+202F" in fuzzy and "÷100" in fuzzy
    assert "**full** match" not in fuzzy
    literal = await hover("25.14", offset=1)
    assert "literal argument" in literal and "`true` ≠ `1`" in literal


async def test_tools_and_graders_show_their_python_source(
    client: LanguageClient, folder: Path
) -> None:
    hover = await hovering(client, folder)
    tool = await hover("subtract", occurrence=2, offset=2)  # the expected tool's name
    assert "**tool `subtract`** (function)" in tool
    assert "def subtract(a: float, b: float) -> float" in tool and "Return a minus b." in tool
    grader = await hover("graders:exact", offset=9)
    assert "def exact(test_case, result)" in grader and "Pass when the answer is exact." in grader


async def test_a_metric_shows_what_is_set_here(client: LanguageClient, folder: Path) -> None:
    hover = await hovering(client, folder)
    metric = await hover("metric: numeric", offset=10)
    assert "absolute_tolerance" in metric and "Set here: `absolute_tolerance: 0.01`" in metric


async def test_positions_are_utf16_and_blank_lines_have_no_hover(
    client: LanguageClient, folder: Path
) -> None:
    document = await opened(client, folder, initialized=True)
    # After an astral character (two UTF-16 units): the position is still the right value.
    text = await hover_text(client, document, position("and the change", 0, 3))
    assert text is not None and "What the user says" in text
    assert await hover_text(client, document, types.Position(line=40, character=0)) is None
