"""textDocument/definition over stdio against the real server, in a suite written by
`import bfcl`: a tool name (an expected tool's, a tool's `name:`) opens BFCL's method in the
suite's copy of the class, not the forwarding wrapper in tools.py."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.importers.bfcl_support import FIXTURE, run_import
from tests.server.lsp_client import initialize, open_file, uri, wait_for


def _at(text: str, needle: str, occurrence: int = 0) -> types.Position:
    index = -1
    for _ in range(occurrence + 1):
        index = text.index(needle, index + 1)
    line = text.count("\n", 0, index)
    return types.Position(line=line, character=index - (text.rfind("\n", 0, index) + 1) + 1)


def _def_line(path: Path, name: str) -> int:
    lines = path.read_text(encoding="utf-8").splitlines()
    return next(n for n, text in enumerate(lines) if text.lstrip().startswith(f"def {name}("))


async def test_a_tool_name_opens_the_copied_bfcl_method(
    client: LanguageClient, tmp_path: Path
) -> None:
    suite = tmp_path / "suite"
    assert (
        run_import(str(FIXTURE), "-o", str(suite), "--classes", "GorillaFileSystem,TwitterAPI") == 0
    )
    await initialize(client, root=suite)
    agent = suite / "agent.yaml"
    text = agent.read_text(encoding="utf-8")
    document = open_file(client, agent)
    await wait_for(client, document)
    classes = suite / "bfcl_classes"
    for needle, occurrence, file, method in (
        ("- name: mkdir", 0, "gorilla_file_system.py", "mkdir"),  # the tool's name
        ("- name: mkdir", 1, "gorilla_file_system.py", "mkdir"),  # an expected tool
        ("- name: post_tweet", 0, "posting_api.py", "post_tweet"),
    ):
        where = _at(text, needle, occurrence)
        where.character += len("- name: ")
        result = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(document), position=where
            )
        )
        assert isinstance(result, types.Location), needle
        assert result.uri == uri(classes / file)
        line = _def_line(classes / file, method)
        assert result.range.start.line == line
        source = (classes / file).read_text().splitlines()[line]
        start, end = result.range.start.character, result.range.end.character
        assert source[start:end] == method
