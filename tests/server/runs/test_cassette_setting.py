"""The `holodeck.cassettePath` setting (server/runs/cassette_setting.py): which file it names
(absolute, beside the agent, else in a workspace folder) and the refusal when none exists."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.runs.run_suite import (
    run,
    start,
)


async def test_missing_cassette_is_reported(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "run.cassette.json").unlink()
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer["status"] == "refused"
    [message] = client.messages
    assert message.type == types.MessageType.Error
    assert "run.cassette.json" in message.message and "cassettePath" in message.message
