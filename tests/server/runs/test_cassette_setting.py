"""The `holodeck.cassettePath` setting (server/runs/cassette_setting.py): which file it names
(absolute, beside the agent, else in a workspace folder) and the refusal when none exists."""

from __future__ import annotations

from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import initialize, open_file, wait_for
from tests.server.runs.run_suite import run, start, write_suite

# A server process per test over stdio, many tests: run by CI and by `pytest FILE`, not the loop.
pytestmark = pytest.mark.slow


async def open_agent_in_subfolder(client: LanguageClient, root: Path, cassette: str) -> str:
    """A workspace `root` whose agent (with its cassette beside it) is in `agents/a/`."""
    await initialize(
        client, root=root, trusted=True, settings={"cassettePath": cassette}, progress=True
    )
    folder = root / "agents" / "a"
    folder.mkdir(parents=True)
    document_uri = open_file(client, write_suite(folder))
    await wait_for(client, document_uri)
    return document_uri


async def test_missing_cassette_is_reported(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "run.cassette.json").unlink()
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer["status"] == "refused"
    [message] = client.messages
    assert message.type == types.MessageType.Error
    assert "run.cassette.json" in message.message and "cassettePath" in message.message


async def test_a_relative_path_is_looked_up_beside_the_agent_first(
    client: LanguageClient, tmp_path: Path
) -> None:
    # The workspace folder holds a file of the same name that is no cassette: never read.
    (tmp_path / "run.cassette.json").write_text("not a cassette", encoding="utf-8")
    document_uri = await open_agent_in_subfolder(client, tmp_path, "run.cassette.json")
    answer = await run(client, "holodeck.runCase", document_uri, 1)
    assert answer["status"] == "done" and answer["summary"]["passed"] == 1
    assert client.messages == []


async def test_a_relative_path_is_then_looked_up_in_the_workspace_folders(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await open_agent_in_subfolder(client, tmp_path, "recordings/run.cassette.json")
    (tmp_path / "recordings").mkdir()
    (tmp_path / "agents" / "a" / "run.cassette.json").rename(
        tmp_path / "recordings" / "run.cassette.json"
    )
    answer = await run(client, "holodeck.runCase", document_uri, 1)
    assert answer["status"] == "done" and answer["summary"]["passed"] == 1


async def test_an_absolute_path_is_taken_as_it_is(client: LanguageClient, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere.json"
    document_uri = await open_agent_in_subfolder(client, tmp_path / "ws", str(elsewhere))
    (tmp_path / "ws" / "agents" / "a" / "run.cassette.json").rename(elsewhere)
    answer = await run(client, "holodeck.runCase", document_uri, 1)
    assert answer["status"] == "done" and answer["summary"]["passed"] == 1


async def test_a_missing_cassette_names_every_place_looked_in(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await open_agent_in_subfolder(client, tmp_path, "nowhere.json")
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer["status"] == "refused"
    [message] = client.messages
    assert message.type == types.MessageType.Error
    assert message.message.startswith(
        "HoloDeck: cassette 'nowhere.json' (setting holodeck.cassettePath) not found: "
    )
    assert str(tmp_path / "agents" / "a" / "nowhere.json") in message.message
    assert str(tmp_path / "nowhere.json") in message.message
