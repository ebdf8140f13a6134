"""The editor's runs keep secrets out of everything the server sends — the same leaky suite
as the CLI's test (tests/runner/test_run_secrets.py): a tool echoing the API key, a `${VAR}`
of the instructions repeated by the model, a backend error quoting the key. Checked in the
`holodeck/runResult` notifications, the commands' responses (run and re-grade), code lens
titles, inlay hints, published diagnostics (with the `holodeck-run` ones), the
`holodeck.lastRunReport` Markdown and HTML page, `window/logMessage` / `showMessage`, and the
server's stderr (where a user tool's log line goes)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.fakes.leaky_suite import ENV, MASK, assert_masked, leaky_replies, write_leaky_suite
from tests.fakes.openai_server import FakeOpenAIServer
from tests.server.lsp_client import (
    SERVER_COMMAND,
    SERVER_ENV,
    initialize,
    make_client,
    open_file,
    published,
)

RUN_TIMEOUT = 60.0
LEAKY_ENV = {
    **{k: v for k, v in SERVER_ENV.items() if not k.startswith(("OPENAI_", "AZURE_OPENAI_"))},
    **ENV,
}
NOTIFIED: list[Any] = []


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND, client_factory=make_client, server_env=LEAKY_ENV
    )
)
async def leaky_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    lsp_client.set_configuration({}, section="holodeck")  # no cassette: a live backend

    @lsp_client.feature("holodeck/runResult")
    def on_result(params: Any) -> None:
        NOTIFIED.append(params)

    await initialize(lsp_client, root=tmp_path, trusted=True, progress=True)
    yield
    await lsp_client.shutdown_session()


def as_text(value: Any) -> str:
    """Whatever the client received (lsprotocol objects, pygls namespaces, dicts) as text."""
    return json.dumps(value, default=lambda o: getattr(o, "__dict__", str(o)), ensure_ascii=False)


async def command(client: LanguageClient, name: str, *arguments: Any) -> Any:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=name, arguments=list(arguments))
        ),
        RUN_TIMEOUT,
    )


async def test_the_server_masks_every_secret_it_sends(
    leaky_client: LanguageClient,
    tmp_path: Path,
    fake_openai: FakeOpenAIServer,
    capfd: pytest.CaptureFixture[str],
) -> None:
    client = leaky_client
    agent = write_leaky_suite(tmp_path / "suite", f"{fake_openai.base_url}/v1")
    document_uri = open_file(client, agent)
    fake_openai.script(*leaky_replies())

    answer = await command(client, "holodeck.runAll", document_uri)
    assert answer["status"] == "done", (answer, [m.message for m in client.messages])
    assert fake_openai.pending == 0
    assert ENV["LEAKY_CODE_WORD"] in json.dumps(fake_openai.chat_requests[0].body)
    echo, instructions, error = answer["results"]
    assert echo["tool_invocations"][0]["result"] == MASK
    assert instructions["agent_response"] == f"The code word is {MASK}."
    assert error["passed"] is False and any(MASK in e for e in error["errors"]), error
    regraded = await command(client, "holodeck.regradeCase", document_uri, 0)
    assert regraded["status"] == "done", regraded
    assert regraded["results"][0]["tool_invocations"][0]["result"] == MASK

    lenses = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=document_uri))
    )
    hints = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=document_uri),
            range=types.Range(types.Position(0, 0), types.Position(100, 0)),
        )
    )
    assert hints and any(MASK in str(hint.label) for hint in hints), hints
    report = await command(client, "holodeck.lastRunReport", document_uri)
    assert report["status"] == "done" and MASK in report["markdown"]
    page = await command(client, "holodeck.lastRunReport", document_uri, {"format": "html"})
    assert page["status"] == "done" and MASK in page["html"]
    await asyncio.sleep(0.5)  # the last publish and stderr lines reach the client
    notified = [params for params in NOTIFIED if params.uri == document_uri]
    assert len(notified) == 4  # three cases run, one re-graded
    diagnostics = [p for p in published(client) if p.uri == document_uri]
    assert any(d.source == "holodeck-run" for p in diagnostics for d in p.diagnostics)
    stderr = capfd.readouterr().err
    assert "reveal called with ***" in stderr

    assert_masked(
        as_text(answer),
        as_text(regraded),
        as_text(notified),
        as_text([lens.command.title for lens in lenses or [] if lens.command]),
        as_text([str(hint.label) for hint in hints]),
        as_text([[d.message for d in p.diagnostics] for p in diagnostics]),
        report["markdown"],
        page["html"],
        as_text([m.message for m in client.log_messages]),
        as_text([m.message for m in client.messages]),
        stderr,
    )
