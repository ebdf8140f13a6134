"""A `${VAR}` value inside a file path never reaches the client (docs/editors/README.md,
"Secrets in file paths"): the suite names its include, a tool's file, the instructions' file
and a subagent's `prompt_file` through `${HOLODECK_PATH_SECRET}`, and every file exists under
its substituted name, with faults in the include. Every message the server sends during a
session that opens both documents and asks every position of them for everything the server
answers (hover, definition, references, links, symbols, lenses, hints, tokens, completion,
code actions, pull diagnostics with related documents, workspace diagnostics and symbols) is
recorded raw and searched for the value, in each form it could be written in (as is,
percent-encoded in a URI)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.server.lsp_client import (
    SERVER_COMMAND,
    SERVER_ENV,
    initialize,
    make_client,
    open_file,
    published,
    wait_for,
)

SECRET = "plover k3y-ø77aa"  # a space and a non-ASCII letter: percent-encoded in URIs
SECRET_ENV = {**SERVER_ENV, "HOLODECK_PATH_SECRET": SECRET}
REFERENCE = "${HOLODECK_PATH_SECRET}"

AGENT = f"""\
name: pathy
model:
  provider: anthropic
  name: claude-sonnet-4-5
instructions:
  file: prompt_{REFERENCE}.md
claude:
  agents:
    helper:
      description: Looks things up.
      prompt_file: helper_{REFERENCE}.md
tools:
  - name: calc
    type: function
    description: adds
    file: tools_{REFERENCE}.py
    function: add
test_cases_file: cases_{REFERENCE}.yaml
"""
CASES = """\
- name: c1
  input: 5
  bogus: 1
  expected_tools: [calc]
"""
RECEIVED: list[str] = []
PULLED: list[Any] = []


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND, client_factory=make_client, server_env=SECRET_ENV
    )
)
async def path_client(lsp_client: LanguageClient) -> AsyncIterator[None]:
    structure = lsp_client.protocol.structure_message

    def record(data: dict[str, Any]) -> Any:
        RECEIVED.append(json.dumps(data, ensure_ascii=False))
        return structure(data)

    lsp_client.protocol.structure_message = record  # type: ignore[method-assign]
    yield
    await lsp_client.shutdown_session()


def write_suite(folder: Path) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / f"prompt_{SECRET}.md").write_text("Be brief.\n", encoding="utf-8")
    (folder / f"helper_{SECRET}.md").write_text("You look things up.\n", encoding="utf-8")
    (folder / f"tools_{SECRET}.py").write_text(
        "def add(a: int, b: int) -> int:\n    return a + b\n", encoding="utf-8"
    )
    (folder / f"cases_{SECRET}.yaml").write_text(CASES, encoding="utf-8")
    agent = folder / "agent.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    return agent


def positions(text: str) -> list[types.Position]:
    """A few places on every line: the key, the value's start, its middle and its end."""
    found: list[types.Position] = []
    for number, line in enumerate(text.splitlines()):
        key = len(line) - len(line.lstrip(" -"))
        value = line.find(": ") + 2 if ": " in line else key
        middle = (value + len(line)) // 2
        for column in sorted({key, value, middle, max(len(line) - 1, 0)}):
            found.append(types.Position(number, column))
    return found


async def ask_everything(client: LanguageClient, uri: str, text: str, pull: bool) -> None:
    document = types.TextDocumentIdentifier(uri=uri)
    whole = types.Range(types.Position(0, 0), types.Position(len(text.splitlines()) + 1, 0))
    await client.text_document_document_link_async(types.DocumentLinkParams(document))
    await client.text_document_document_symbol_async(types.DocumentSymbolParams(document))
    await client.text_document_code_lens_async(types.CodeLensParams(document))
    await client.text_document_inlay_hint_async(
        types.InlayHintParams(text_document=document, range=whole)
    )
    await client.text_document_semantic_tokens_full_async(types.SemanticTokensParams(document))
    await client.text_document_folding_range_async(types.FoldingRangeParams(document))
    if pull:
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(document)
        )
        PULLED.append(report)
        await client.workspace_diagnostic_async(
            types.WorkspaceDiagnosticParams(previous_result_ids=[])
        )
    await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=document, range=whole, context=types.CodeActionContext(diagnostics=[])
        )
    )
    for at in positions(text):
        await client.text_document_hover_async(types.HoverParams(document, at))
        await client.text_document_definition_async(types.DefinitionParams(document, at))
        await client.text_document_references_async(
            types.ReferenceParams(
                context=types.ReferenceContext(include_declaration=True),
                text_document=document,
                position=at,
            )
        )
        await client.text_document_completion_async(types.CompletionParams(document, at))


def leaks() -> list[str]:
    forms = {SECRET, quote(SECRET), quote(SECRET, safe="")}
    return [message[:400] for message in RECEIVED if any(form in message for form in forms)]


@pytest.mark.parametrize("mode", ["push", "pull"])
async def test_a_secret_in_a_path_never_reaches_the_client(
    path_client: LanguageClient, tmp_path: Path, mode: str
) -> None:
    client = path_client
    RECEIVED.clear()
    PULLED.clear()
    agent = write_suite(tmp_path / "suite")
    await initialize(client, root=tmp_path, trusted=False, diagnostics=mode)
    agent_uri = open_file(client, agent)
    if mode == "push":
        await wait_for(client, agent_uri)
    await ask_everything(client, agent_uri, AGENT, pull=mode == "pull")
    await client.workspace_symbol_async(types.WorkspaceSymbolParams(query=""))
    await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="c1"))
    await asyncio.sleep(0.5)
    assert len(RECEIVED) > 100, "nothing recorded"
    assert leaks() == []
    # Written as the agent file writes it: the hover on the tool, the file completions.
    assert any(f"tools_{REFERENCE}.py" in message for message in RECEIVED)
    # The include's faults are not lost: they are told on the line that names it.
    include_line = AGENT.splitlines().index(f"test_cases_file: cases_{REFERENCE}.yaml")
    if mode == "push":
        items = [d for p in published(client) if p.uri == agent_uri for d in p.diagnostics]
    else:
        items = list(PULLED[0].items)
    at_include = [d for d in items if d.range.start.line == include_line]
    assert any(d.code == "HD100" for d in at_include), [(d.code, d.message) for d in items]
