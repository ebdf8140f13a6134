"""textDocument/definition over stdio against the real server: expected tools, tool names and
functions to the `def`; a `grader:` to its function; nothing for other values."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.features.navigation_agent import opened, position
from tests.server.lsp_client import uri


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
