"""The tool loop from the editor (docs/running.md, "Tool loop"): the real server over stdio
runs a turn live — Semantic Kernel and the Claude Agent SDK, real function tools, the models of
tests/fakes/tool_loop_models.py on the fake OpenAI and Anthropic servers. A turn stopped at
the limit carries its reason in the result, the turn's diagnostic and its inlay hint; the
project's `max_tool_rounds:` applies to the editor's runs as to `run`'s; odd calls come back
recorded as sent, and a failed expectation says which problem happened."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.tool_loop_models import (
    LEAKED_NAME,
    NOT_JSON_7,
    NOT_JSON_9,
    TICKET_9,
    anthropic_responder,
    openai_responder,
    write_suite,
)
from tests.runner.backends.test_claude_backend import needs_cli
from tests.server.lsp_client import (
    SERVER_COMMAND,
    SERVER_ENV,
    initialize,
    make_client,
    open_file,
    published,
)
from tests.server.test_server_run_live import publish_after, run, run_items

# Live runs over stdio against fake model servers: seconds per test.
pytestmark = pytest.mark.slow

LIVE_ENV = {
    **{k: v for k, v in SERVER_ENV.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))},
    "OPENAI_API_KEY": "sk-tool-loop-lsp-91d3",
    "ANTHROPIC_API_KEY": "sk-ant-tool-loop-lsp-6a2f",
}


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("tool-loop-workspace")


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND, client_factory=make_client, server_env=LIVE_ENV
    ),
    scope="module",  # one server: its first live run imports the SDKs
)
async def live_client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    lsp_client.set_configuration({}, section="holodeck")  # no cassette: a live backend
    await initialize(lsp_client, root=workspace, trusted=True, progress=True)
    yield
    await lsp_client.shutdown_session()


async def open_suite(client: LanguageClient, folder: Path, model: str) -> tuple[str, list[str]]:
    agent = write_suite(folder, model)
    seen = len(published(client))
    document_uri = open_file(client, agent)
    first = await publish_after(client, document_uri, seen)
    assert [d.message for d in first.diagnostics] == []
    return document_uri, agent.read_text(encoding="utf-8").splitlines()


def line_of(lines: list[str], text: str) -> int:
    return next(i for i, line in enumerate(lines) if text in line)


async def hint_at(client: LanguageClient, document_uri: str, line: int) -> str:
    found = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=document_uri),
            range=types.Range(types.Position(0, 0), types.Position(200, 0)),
        )
    )
    [label] = [str(h.label) for h in found or [] if h.position.line == line]
    return label


async def run_turn(client: LanguageClient, document_uri: str, case: int, turn: int) -> Any:
    answer = await run(client, "holodeck.runTurn", document_uri, case, turn)
    [result] = answer["results"]
    return result["turns"][-1]


async def test_a_turn_stopped_at_the_limit_in_the_editor_sk(
    live_client: LanguageClient, workspace: Path, fake_openai: FakeOpenAIServer
) -> None:
    client = live_client
    fake_openai.responder = openai_responder
    model = f'{{provider: openai, name: gpt-4o-mini, endpoint: "{fake_openai.base_url}/v1"}}'
    document_uri, lines = await open_suite(client, workspace / "sk", model)
    seen = len(published(client))
    turn = await run_turn(client, document_uri, 0, 0)
    assert turn["tool_limit_reached"] == 20 and len(turn["tool_invocations"]) == 20
    assert turn["errors"] == ["stopped after 20 tool rounds: the limit"]
    loop_line = line_of(lines, "Touch 25 files.")
    params = await publish_after(client, document_uri, seen, lambda p: bool(run_items(p)))
    assert (loop_line, "stopped after 20 tool rounds: the limit") in run_items(params)
    assert "stopped after 20 tool rounds" in await hint_at(client, document_uri, loop_line)

    # Odd calls: recorded as sent, with what the model got back.
    turn = await run_turn(client, document_uri, 1, 0)
    calls = [(c["name"], c["raw_arguments"], c["call_problem"]) for c in turn["tool_invocations"]]
    assert calls == [
        (LEAKED_NAME, '{"path": "."}', "unknown_tool"),
        ("tools-lookup_ticket", NOT_JSON_7, "invalid_json"),
        ("tools-lookup_ticket", '{"ticket_id": "seven"}', "bad_arguments"),
        ("tools-lookup_ticket", '{"ticket_id": 7}', None),
    ]
    assert all(c["error"] for c in turn["tool_invocations"][:3]) and turn["passed"]

    # A failed expectation names the problem, at the turn's expected tool.
    seen = len(published(client))
    turn = await run_turn(client, document_uri, 1, 1)
    params = await publish_after(client, document_uri, seen, lambda p: bool(run_items(p)))
    messages = [message for _, message in run_items(params)]
    assert (
        "expected_tools lookup_ticket: arg 'ticket_id' missing; the call could not run: its "
        f"arguments are not a JSON object (sent {NOT_JSON_9!r})"
    ) in messages
    assert turn["input"] == TICKET_9


@needs_cli
async def test_the_projects_limit_stops_a_claude_turn_in_the_editor(
    live_client: LanguageClient, workspace: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    client = live_client
    fake_anthropic.responder = anthropic_responder
    folder = workspace / "claude"
    model = f'{{provider: anthropic, name: claude-test-1, endpoint: "{fake_anthropic.base_url}"}}'
    document_uri, lines = await open_suite(client, folder, model)
    (folder / "holodeck-lsp.yaml").write_text("max_tool_rounds: 3\n", encoding="utf-8")
    turn = await run_turn(client, document_uri, 0, 0)
    assert turn["tool_limit_reached"] == 3 and len(turn["tool_invocations"]) == 3
    assert turn["errors"] == ["stopped after 3 tool rounds: the limit"]
    loop_line = line_of(lines, "Touch 25 files.")
    assert "stopped after 3 tool rounds" in await hint_at(client, document_uri, loop_line)
