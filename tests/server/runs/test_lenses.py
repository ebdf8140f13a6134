"""The run code lenses (server/runs/lenses.py), from the real server: `▶ Run all`, `▶ Run case`,
`▶ Run turn N` with each command's arguments."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import TIMEOUT, change_file, open_file, wait_for
from tests.server.runs.run_suite import (
    AGENT,
    CASES_LINE,
    SINGLE_LINE,
    TURN0_LINE,
    TURN1_LINE,
    lenses,
    run,
    start,
    write_suite,
)


async def test_lenses_offer_run_all_cases_and_turns(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    assert await lenses(client, document_uri) == [
        (10, "▶ Run all", [document_uri]),
        (CASES_LINE, "▶ Run case", [document_uri, 0]),
        (TURN0_LINE, "▶ Run turn 0", [document_uri, 0, 0]),
        (TURN1_LINE, "▶ Run turn 1", [document_uri, 0, 1]),
        (SINGLE_LINE, "▶ Run case", [document_uri, 1]),
        (SINGLE_LINE, "▶ Run turn 0", [document_uri, 1, 0]),
    ]


async def test_a_file_with_errors_says_why_it_cannot_run(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    broken = AGENT.replace("      metric: numeric\n", "      metric: numeric\n      bogus: 1\n")
    change_file(client, document_uri, broken, version=2)
    params = await wait_for(client, document_uri, lambda p: p.version == 2)
    errors = [d for d in params.diagnostics if d.severity == types.DiagnosticSeverity.Error]
    assert errors
    # One lens saying why, instead of run lenses that would be refused on click.
    [(line, title, arguments)] = await lenses(client, document_uri)
    assert line == CASES_LINE - 1 + 1  # `test_cases:` moved down by the added line
    assert title == f"⊘ Cannot run: agent.yaml has {len(errors)} error" + (
        "s — fix them first" if len(errors) > 1 else " — fix them first"
    )
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=document_uri))
    )
    assert found and found[0].command and found[0].command.command == "holodeck.whyNoRun"
    answer = await run(client, "holodeck.whyNoRun", *arguments)
    assert answer["status"] == "refused"
    assert answer["reason"].startswith(f"HoloDeck: agent.yaml has {len(errors)} error")
    assert errors[0].message in answer["reason"]  # the first error, to start fixing from
    assert client.messages[-1].message == answer["reason"]
    # Fixed: the run lenses are back.
    change_file(client, document_uri, AGENT, version=3)
    await wait_for(client, document_uri, lambda p: p.version == 3)
    assert [title for _, title, _ in await lenses(client, document_uri)][:2] == [
        "▶ Run all",
        "▶ Run case",
    ]
    assert await run(client, "holodeck.whyNoRun", document_uri) == {"status": "runnable"}


async def test_an_untrusted_workspace_says_runs_are_disabled(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=False)
    assert await lenses(client, document_uri) == [
        (CASES_LINE - 1, "⊘ Cannot run: untrusted workspace", [document_uri])
    ]
    answer = await run(client, "holodeck.whyNoRun", document_uri)
    assert "untrusted" in answer["reason"] and "Trust this workspace" in answer["reason"]


async def test_lenses_are_asked_for_again_when_errors_come_or_go(
    client: LanguageClient, tmp_path: Path
) -> None:
    refreshes: list[None] = []

    @client.feature(types.WORKSPACE_CODE_LENS_REFRESH)
    def on_refresh(params: None) -> None:
        refreshes.append(params)

    # No re-grading on edit: its results ask for lenses too.
    client.set_configuration({"regradeOnEdit": False}, section="holodeck")
    await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                workspace=types.WorkspaceClientCapabilities(
                    configuration=True,
                    code_lens=types.CodeLensWorkspaceClientCapabilities(refresh_support=True),
                ),
            ),
            root_uri=tmp_path.as_uri(),
            initialization_options={"trusted": True},
        )
    )
    document_uri = open_file(client, write_suite(tmp_path))
    await wait_for(client, document_uri)
    change_file(client, document_uri, AGENT.replace("test_cases:", "test_cases: 3\nx:"), 2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    await _until(lambda: len(refreshes) == 1)  # runnable -> refused
    change_file(client, document_uri, AGENT.replace('"q0"', '"q0 edited"'), version=3)
    await wait_for(client, document_uri, lambda p: p.version == 3)
    await _until(lambda: len(refreshes) == 2)  # refused -> runnable
    change_file(client, document_uri, AGENT.replace('"q0"', '"q0 again"'), version=4)
    await wait_for(client, document_uri, lambda p: p.version == 4)
    await asyncio.sleep(0.2)
    assert len(refreshes) == 2  # still runnable: not asked again


async def _until(condition: Callable[[], bool]) -> None:
    """The refresh request follows the publish: wait for it (bounded)."""
    async with asyncio.timeout(TIMEOUT):
        while not condition():
            await asyncio.sleep(0.01)


def actions(found: list[tuple[int, str, list[Any]]]) -> list[tuple[int, str, list[Any]]]:
    """The lenses without their result marks: (line, "Run case", arguments)."""
    return [(line, title.lstrip("▶✓✗!⚠ ").split(" (")[0], args) for line, title, args in found]


async def test_a_cancelled_lens_request_costs_no_later_one(
    client: LanguageClient, tmp_path: Path
) -> None:
    """VS Code cancels lens requests it no longer needs (a scroll, a layout change). The work a
    request waits for — the parse, the baseline view — is shared with the requests after it:
    a cancel must stop only the one request, never the shared work (once, it cost an e2e run
    every lens of the file: the next request of the version answered "canceled")."""
    document_uri = await start(client, tmp_path, trusted=True)
    expected = await lenses(client, document_uri)
    assert expected and expected[0][1] == "▶ Run all"
    params = types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=document_uri))
    for version in range(2, 32):
        change_file(client, document_uri, AGENT + f"# edit {version}\n", version=version)
        doomed = f"doomed-{version}"
        client.protocol.send_request(types.TEXT_DOCUMENT_CODE_LENS, params, msg_id=doomed)
        # Cancelled at different points of the request's wait: parse, then baseline view.
        await asyncio.sleep((version % 6) * 0.002)
        client.protocol.notify(types.CANCEL_REQUEST, types.CancelParams(id=doomed))
        # Every lens, on its line, with its action — its mark may have changed meanwhile: an
        # edit in a trusted workspace re-grades the last results ("✓ Run case (re-graded)").
        assert actions(await lenses(client, document_uri)) == actions(expected), version
