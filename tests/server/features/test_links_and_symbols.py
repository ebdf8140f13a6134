"""documentLink, definition on a file value and workspace/symbol over stdio against the real
server (the navigation agent: a tool's `file:`, a `grader:` module; plus an include)."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.features.navigation_agent import opened, position
from tests.server.lsp_client import uri


async def test_document_links_and_definition_on_paths(
    client: LanguageClient, tmp_path: Path
) -> None:
    document = await opened(client, tmp_path)
    links = await client.text_document_document_link_async(
        types.DocumentLinkParams(types.TextDocumentIdentifier(document))
    )
    assert links is not None
    found = sorted((link.range.start.line, link.target) for link in links)
    tools_at, grader_at = position("file: tools.py"), position("graders:exact")
    assert found == sorted(
        [
            (tools_at.line, uri(tmp_path / "tools.py")),
            (grader_at.line, uri(tmp_path / "graders.py")),
        ]
    )
    grader_link = next(link for link in links if link.range.start.line == grader_at.line)
    assert grader_link.range.end.character - grader_link.range.start.character == len("graders")

    target = await client.text_document_definition_async(
        types.DefinitionParams(
            types.TextDocumentIdentifier(document), position("tools.py", offset=8)
        )
    )
    assert isinstance(target, types.Location) and target.uri == uri(tmp_path / "tools.py")
    # A missing file has no link (its diagnostic says so).
    (tmp_path / "tools.py").unlink()
    links = await client.text_document_document_link_async(
        types.DocumentLinkParams(types.TextDocumentIdentifier(document))
    )
    assert [link.target for link in links or []] == [uri(tmp_path / "graders.py")]


async def test_workspace_symbols(client: LanguageClient, tmp_path: Path) -> None:
    await opened(client, tmp_path)
    other = tmp_path / "more" / "agent.yaml"
    other.parent.mkdir()
    other.write_text(
        "name: more\nmodel: {provider: openai, name: gpt-4o}\ninstructions: {inline: x}\n"
        "test_cases_file: cases.yaml\n",
        encoding="utf-8",
    )
    (other.parent / "cases.yaml").write_text(
        "- name: closing price\n  input: x\n", encoding="utf-8"
    )
    symbols = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    assert isinstance(symbols, list)
    names = sorted((s.name, s.kind) for s in symbols)
    assert ("closing price", types.SymbolKind.Class) in names
    assert ("subtract", types.SymbolKind.Function) in names
    assert ("😀 first", types.SymbolKind.Class) in names
    closing = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="clpr"))
    assert [s.name for s in closing or []] == ["closing price"]
    # pygls reads the answer back as SymbolInformation (the same fields on the wire).
    location = closing[0].location  # type: ignore[index]
    assert isinstance(location, types.Location)
    assert location.uri == uri(other.parent / "cases.yaml")
    assert location.range.start == types.Position(line=0, character=8)
