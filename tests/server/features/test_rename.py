"""textDocument/references, prepareRename and rename over stdio against the real server: a
tool renamed from its `name:` in the agent reaches every exact `expected_tools` entry in the
`test_cases_file` include (and back, from the include), leaves a substring entry alone and
says so; a case name renames; the edited suite still checks clean."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import initialize, open_file, uri, wait_for

AGENT = """\
name: renames
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
tools:
  - name: subtract
    type: function
    description: "a minus b"
    file: tools.py
    function: subtract
test_cases_file: cases.yaml
"""
CASES = """\
- name: first
  turns:
    - input: "what was it?"
      ground_truth: "60.94"
      expected_tools: [subtract]
    - input: "and then?"
      ground_truth: "5"
      expected_tools:
        - name: "subtract"
          args: {a: 1}
        - sub
- name: second
  input: "once"
  expected_tools: [subtract]
"""
TOOLS = "def subtract(a: float, b: float) -> float:\n    return a - b\n"


def at(text: str, needle: str, occurrence: int = 0, offset: int = 1) -> types.Position:
    lines = [(n, line) for n, line in enumerate(text.split("\n")) if needle in line]
    line, content = lines[occurrence]
    return types.Position(line=line, character=content.index(needle) + offset)


def apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = text.split("\n")
    for edit in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        start, end = edit.range.start, edit.range.end
        assert start.line == end.line
        line = lines[start.line]
        lines[start.line] = line[: start.character] + edit.new_text + line[end.character :]
    return "\n".join(lines)


async def suite(client: LanguageClient, tmp_path: Path) -> tuple[str, str]:
    await initialize(client, root=tmp_path)
    (tmp_path / "tools.py").write_text(TOOLS, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(CASES, encoding="utf-8")
    agent = tmp_path / "agent.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    document = open_file(client, agent)
    await wait_for(client, document)
    return document, uri(tmp_path / "cases.yaml")


async def test_references_and_rename_of_a_tool_across_the_include(
    client: LanguageClient, tmp_path: Path
) -> None:
    document, cases = await suite(client, tmp_path)
    where = at(AGENT, "name: subtract", offset=7)
    found = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=types.TextDocumentIdentifier(document),
            position=where,
            context=types.ReferenceContext(include_declaration=True),
        )
    )
    assert found is not None
    lines = sorted((loc.uri == cases, loc.range.start.line) for loc in found)
    # The declaration, the three exact entries and `sub` (a substring: it matches too).
    assert lines == [(False, 7), (True, 4), (True, 8), (True, 10), (True, 13)]

    prepared = await client.text_document_prepare_rename_async(
        types.PrepareRenameParams(types.TextDocumentIdentifier(document), where)
    )
    assert isinstance(prepared, types.PrepareRenamePlaceholder)
    assert prepared.placeholder == "subtract"

    edit = await client.text_document_rename_async(
        types.RenameParams(types.TextDocumentIdentifier(document), where, "minus")
    )
    assert edit is not None and edit.changes is not None
    assert apply(AGENT, edit.changes[document]) == AGENT.replace("name: subtract", "name: minus")
    renamed = apply(CASES, edit.changes[cases])
    assert renamed == CASES.replace("subtract", "minus")  # `sub` left as written
    for _ in range(100):
        if client.messages:
            break
        await asyncio.sleep(0.02)
    assert client.messages and "'sub' (cases.yaml:11)" in client.messages[-1].message


async def test_rename_from_the_include_and_of_a_case(
    client: LanguageClient, tmp_path: Path
) -> None:
    document, _cases = await suite(client, tmp_path)
    include = open_file(client, tmp_path / "cases.yaml")
    await wait_for(client, include)
    edit = await client.text_document_rename_async(
        types.RenameParams(
            types.TextDocumentIdentifier(include), at(CASES, "[subtract]", offset=3), "take away"
        )
    )
    assert edit is not None and edit.changes is not None
    assert set(edit.changes) == {document, include}
    assert apply(AGENT, edit.changes[document]).count("name: take away") == 1
    assert apply(CASES, edit.changes[include]).count('"take away"') == 1  # kept its quotes
    assert "[take away]" in apply(CASES, edit.changes[include])

    case = await client.text_document_rename_async(
        types.RenameParams(types.TextDocumentIdentifier(include), at(CASES, "second"), "2: second")
    )
    assert case is not None and case.changes is not None
    assert list(case.changes) == [include]
    assert apply(CASES, case.changes[include]).splitlines()[11] == '- name: "2: second"'
    # Nothing to rename on other values.
    none = await client.text_document_rename_async(
        types.RenameParams(types.TextDocumentIdentifier(include), at(CASES, "once"), "x")
    )
    assert none is None
