"""Run code actions (server/runs/run_actions.py) from the real server, for clients without code
lenses: at the cursor, "Run turn N" / "Run case" / "Run all" — the lenses' own commands
and arguments, which run the turn when executed; none for a client that shows lenses, none
when the run would be refused, none under an `only` filter."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, open_file, wait_for
from tests.server.runs.run_suite import (
    AGENT,
    ARG_B_LINE,
    CASES_LINE,
    SINGLE_LINE,
    TURN0_LINE,
    grade_turn_0_with,
    hints,
    lenses,
    run,
    start,
    write_suite,
)


async def actions_at(
    client: LanguageClient,
    document_uri: str,
    line: int,
    only: list[types.CodeActionKind] | None = None,
) -> list[types.Command]:
    at = types.Position(line, 4)
    found = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=document_uri),
            range=types.Range(at, at),
            context=types.CodeActionContext(diagnostics=[], only=only),
        )
    )
    return [item for item in found or [] if isinstance(item, types.Command)]


def commands(found: list[types.Command]) -> list[tuple[str, str, list[Any]]]:
    return [(command.title, command.command, list(command.arguments or [])) for command in found]


async def test_run_actions_at_the_cursor_carry_the_lenses_commands(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    offered = commands(await actions_at(client, document_uri, ARG_B_LINE))  # in turn 1
    assert offered == [
        ("HoloDeck: Run turn 1 of case 'two-turns'", "holodeck.runTurn", [document_uri, 0, 1]),
        ("HoloDeck: Run case 'two-turns'", "holodeck.runCase", [document_uri, 0]),
        ("HoloDeck: Run all test cases", "holodeck.runAll", [document_uri]),
    ]
    lens_commands = {(title, tuple(args)) for _, title, args in await lenses(client, document_uri)}
    assert ("▶ Run turn 1", (document_uri, 0, 1)) in lens_commands
    assert commands(await actions_at(client, document_uri, TURN0_LINE))[0][2] == [
        document_uri,
        0,
        0,
    ]
    # A single-turn case: its turn is the case; outside every case, only Run all.
    single = commands(await actions_at(client, document_uri, SINGLE_LINE + 1))
    assert [title for title, _, _ in single] == [
        "HoloDeck: Run case 'single'",
        "HoloDeck: Run all test cases",
    ]
    assert [title for title, _, _ in commands(await actions_at(client, document_uri, 1))] == [
        "HoloDeck: Run all test cases"
    ]
    # Executing the action's command runs that turn: the cassette answers b=6, so it fails,
    # and its result is shown at the turn as for a lens click.
    _, command, arguments = offered[0]
    answer = await run(client, command, *arguments)
    assert answer["status"] == "done" and answer["summary"]["failed"] == 1, answer
    assert [t["turn_index"] for t in answer["results"][0]["turns"]] == [1]
    assert [label[0] for _, label in await hints(client, document_uri)] == ["✗"]


async def test_no_run_actions_in_an_untrusted_workspace(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=False)
    assert commands(await actions_at(client, document_uri, CASES_LINE)) == []


async def test_no_run_actions_while_the_file_has_errors(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    assert commands(await actions_at(client, document_uri, ARG_B_LINE))
    change_file(client, document_uri, AGENT.replace("provider: openai", "provider: openia"), 2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    assert commands(await actions_at(client, document_uri, ARG_B_LINE)) == []


async def test_an_only_filter_leaves_run_actions_out(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    quick = [types.CodeActionKind.QuickFix]
    assert commands(await actions_at(client, document_uri, ARG_B_LINE, only=quick)) == []
    assert commands(await actions_at(client, document_uri, ARG_B_LINE)) != []


async def test_a_client_that_shows_lenses_gets_no_run_actions(
    client: LanguageClient, tmp_path: Path
) -> None:
    await client.initialize_session(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(
                text_document=types.TextDocumentClientCapabilities(
                    code_lens=types.CodeLensClientCapabilities(dynamic_registration=False)
                ),
            ),
            root_uri=tmp_path.as_uri(),
            initialization_options={"trusted": True, "cassettePath": "run.cassette.json"},
        )
    )
    document_uri = open_file(client, write_suite(tmp_path))
    await wait_for(client, document_uri)
    assert await lenses(client, document_uri)  # it has the lenses instead
    assert commands(await actions_at(client, document_uri, ARG_B_LINE)) == []


async def test_while_a_run_goes_the_only_action_cancels_it(
    client: LanguageClient, tmp_path: Path
) -> None:
    """An editor without lenses (and without our palette command) can stop a run too."""
    document_uri = await start(client, tmp_path, trusted=True)
    await grade_turn_0_with(client, tmp_path, document_uri, "slow")
    running = asyncio.ensure_future(run(client, "holodeck.runCase", document_uri, 0))
    while not any(client.progress_reports.values()):
        await asyncio.sleep(0.001)
    offered = commands(await actions_at(client, document_uri, TURN0_LINE))
    assert offered == [("HoloDeck: Cancel the run", "holodeck.cancelRun", [document_uri])]
    assert await run(client, offered[0][1], *offered[0][2]) == {"status": "cancelling"}
    assert (await running)["status"] == "cancelled"
    # Over: the run actions are back.
    after = commands(await actions_at(client, document_uri, TURN0_LINE))
    assert [title for title, _, _ in after][-1] == "HoloDeck: Run all test cases"
