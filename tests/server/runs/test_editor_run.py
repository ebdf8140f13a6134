"""The run commands' refusals and scopes (server/runs/editor_run.py): an untrusted workspace, a
backend that cannot start, a single turn, a re-grade from the last answers."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, wait_for
from tests.server.runs.run_suite import (
    AGENT,
    hints,
    lenses,
    run,
    start,
)

# A server process per test over stdio, many tests: run by CI and by `pytest FILE`, not the loop.
pytestmark = pytest.mark.slow


async def test_untrusted_workspace_refuses_to_run(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=False)
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer == {"status": "refused", "reason": "untrusted"}
    [message] = client.messages
    assert message.type == types.MessageType.Warning
    assert "untrusted" in message.message and "tools" in message.message


@pytest.mark.skipif("OPENAI_API_KEY" in os.environ, reason="the live backend could start")
async def test_a_backend_that_cannot_start_is_reported(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True, cassette=False)
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer["status"] == "refused"
    [message] = client.messages
    assert message.type == types.MessageType.Error
    # BackendInitError's own text: the missing extra or the missing API key, and how to fix it.
    assert "openai" in message.message
    assert "OPENAI_API_KEY" in message.message or "pip install" in message.message


async def test_run_turn_marks_that_turn_only(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    answer = await run(client, "holodeck.runTurn", document_uri, 0, 1)
    assert [t["turn_index"] for t in answer["results"][0]["turns"]] == [1]
    titles = [title for _, title, _ in await lenses(client, document_uri)]
    assert titles[1:4] == ["▶ Run case", "▶ Run turn 0", "✗ Run turn 1"]


async def test_regrade_replays_the_last_answers_against_the_edited_case(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    answer = await run(client, "holodeck.regradeCase", document_uri, 0)
    assert answer["status"] == "refused" and "run the case first" in answer["reason"]
    await run(client, "holodeck.runCase", document_uri, 0)
    (tmp_path / "run.cassette.json").unlink()  # a re-grade needs no backend or cassette
    change_file(client, document_uri, AGENT.replace("b: 5", "b: 6"), version=2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    answer = await run(client, "holodeck.regradeCase", document_uri, 0)
    assert answer["status"] == "done" and answer["summary"]["passed"] == 1
    assert [t["response"] for t in answer["results"][0]["turns"]] == ["10", "5"]
    titles = [title for _, title, _ in await lenses(client, document_uri)]
    assert titles[1:5] == ["✓ Run case (re-graded)", "↻ Re-grade", "✓ Run turn 0", "✓ Run turn 1"]
    assert [label[0] for _, label in await hints(client, document_uri)] == ["✓", "✓"]


#: holodeck-lsp.yaml beside the agent, over the shipped price of gpt-4o-mini (0.15 / 0.60 USD
#: per million): 10 prompt + 2 completion tokens a turn at 1,000 USD per million each.
HOUSE_PRICES = "prices:\n  openai:gpt-4o-mini: {input: 1000, output: 1000}\n"


async def test_holodeck_lsp_yaml_prices_the_editors_run(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "holodeck-lsp.yaml").write_text(HOUSE_PRICES, encoding="utf-8")
    answer = await run(client, "holodeck.runAll", document_uri)
    # 0.012 USD a turn, as `holodeck-lsp run` prices it (not the list's 0.0000027).
    assert [turn["cost_usd"] for turn in answer["results"][0]["turns"]] == [0.012, 0.012]
    assert answer["results"][1]["cost_usd"] == 0.012
    [reports] = client.progress_reports.values()
    messages = [r.message for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert messages[-1] == "single turn 0 ✓ (3/3) · 36 tokens · 0.0360 USD"


async def test_a_bad_holodeck_lsp_yaml_refuses_the_editors_run(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "holodeck-lsp.yaml").write_text("limits:\n  openai: {rpm: -5}\n", "utf-8")
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer["status"] == "refused" and "limits.openai.rpm" in answer["reason"]
    [message] = client.messages
    assert message.type == types.MessageType.Error and "holodeck-lsp.yaml" in message.message
