"""textDocument/definition over stdio against the real server: expected tools, tool names and
functions to the `def`; a `grader:` to its function; nothing for other values."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.features.navigation_agent import opened, position
from tests.server.lsp_client import initialize, open_file, uri, wait_for


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


INCLUDING_AGENT = """\
name: included
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "Answer."}
tools:
  - {name: subtract, type: function, description: "a minus b", file: tools.py, function: subtract}
test_cases_file: cases/more.yaml
"""
INCLUDED_CASES = """\
- name: first
  input: "what was it?"
  expected_tools: [subtract, divide]
"""


async def test_definition_of_an_expected_tool_in_an_include(
    client: LanguageClient, tmp_path: Path
) -> None:
    """An include declares no tools: its expected tool is found in the agent that includes
    it, and the tool's `file:` read from the agent's folder (not the include's)."""
    await initialize(client, root=tmp_path)
    (tmp_path / "tools.py").write_text("def subtract(a, b):\n    return a - b\n", "utf-8")
    (tmp_path / "agent.yaml").write_text(INCLUDING_AGENT, encoding="utf-8")
    (tmp_path / "cases").mkdir()
    (tmp_path / "cases" / "more.yaml").write_text(INCLUDED_CASES, encoding="utf-8")
    include = open_file(client, tmp_path / "cases" / "more.yaml")
    await wait_for(client, include)

    async def goto(character: int) -> types.Location | None:
        result = await client.text_document_definition_async(
            types.DefinitionParams(
                text_document=types.TextDocumentIdentifier(include),
                position=types.Position(line=2, character=character),
            )
        )
        assert result is None or isinstance(result, types.Location)
        return result

    line = INCLUDED_CASES.splitlines()[2]
    found = await goto(line.index("subtract") + 2)
    assert found is not None and found.uri == uri(tmp_path / "tools.py")
    assert found.range == types.Range(types.Position(0, 4), types.Position(0, 12))
    assert await goto(line.index("divide") + 2) is None  # declared nowhere
