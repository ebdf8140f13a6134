"""`holodeck.conversation` (server/runs/conversation.py) from the real server: a case of the
document's last run as its conversation text, alone and beside the baseline run stored by the
real CLI (stored_history.py: bad, good, bad), masked as the compare command is."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from pytest_lsp import LanguageClient

from tests.server.lsp_client import SERVER_ENV
from tests.server.runs.run_suite import run, start
from tests.server.runs.stored_history import make_history, stored_ids
from tests.server.shared_server import own_client

COMMAND = "holodeck.conversation"
PLANTED = "sk-planted-conversation-9b3e1d"
PLANTED_ENV = {**SERVER_ENV, "EDITOR_BASELINE_TOKEN": PLANTED}


async def test_a_case_of_the_last_run_as_its_conversation(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = await start(client, tmp_path, trusted=True)
    before = await run(client, COMMAND, uri, {"case": 0})
    assert before["status"] == "none" and "no run of this file" in before["reason"], before
    refused = await run(client, COMMAND, uri, {"case": "first"})
    assert refused["status"] == "refused" and "'first'" in refused["reason"], refused
    refused = await run(client, COMMAND, uri)
    assert refused["status"] == "refused" and '{"case": 0}' in refused["reason"], refused

    await run(client, "holodeck.runAll", uri)
    answer = await run(client, COMMAND, uri, {"case": 0})

    assert answer["status"] == "done" and answer["case"] == "two-turns", answer
    lines = answer["markdown"].splitlines()
    assert lines[0] == "# two-turns (case #0) — runs", lines[:3]
    # The cassette: turn 0 answers 10 (passes), turn 1 calls subtract with b=6 (fails).
    assert "## Turn 0 · passed" in lines and "## Turn 1 · failed" in lines, lines
    assert '- tool `subtract` {"a":10,"b":6} → 4' in lines, lines
    assert "**user:** q1" in lines and "**agent:** 5" in lines and "**expected:** 5" in lines
    why = lines[lines.index("**why it failed:**") + 1]
    assert "subtract" in why and "'b'" in why, why
    missing = await run(client, COMMAND, uri, {"case": 7})
    assert missing["status"] == "none" and "no case #7" in missing["reason"], missing
    other_model = await run(client, COMMAND, uri, {"case": 0, "beside": "openai:gpt-4o"})
    assert other_model["status"] == "none" and "not run on model" in other_model["reason"]


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_history(tmp_path_factory.mktemp("conversation-history"), f" {PLANTED}")


planted_client = own_client(PLANTED_ENV)


@pytest.mark.slow  # three CLI runs store the history
async def test_beside_the_baseline_marks_the_turns_that_differ_masked(
    planted_client: LanguageClient, history: Path, tmp_path: Path
) -> None:
    client = planted_client
    suite = tmp_path / "suite"
    shutil.copytree(history, suite)
    latest = stored_ids(suite)[-1]
    assert PLANTED in (suite / ".holodeck" / "runs" / latest / "report.json").read_text()
    uri = await start(client, suite, trusted=True)
    await run(client, "holodeck.runAll", uri)  # the good cassette; stored, then compared

    answer = await run(client, COMMAND, uri, {"case": 0, "beside": "baseline"})

    assert answer["status"] == "done", answer
    text = answer["markdown"]
    assert PLANTED not in json.dumps(answer) and "***" in text, text
    label = f"baseline run {latest}"
    lines = text.splitlines()
    assert f"**≠ differs**: 2 of 2 turns differ (turns 0, 1) between this run and {label}" in lines
    turn0 = lines.index(f"## Turn 0 · this run: passed · {label}: failed")
    assert lines[turn0 + 2] == "≠ differs: verdict, answer", lines[turn0 : turn0 + 4]
    turn1 = lines.index(f"## Turn 1 · this run: failed · {label}: failed")
    assert lines[turn1 + 2] == "≠ differs: answer, tool calls", lines[turn1 : turn1 + 4]
    assert '- tool `subtract` {"a":10,"b":5} → 4' in lines  # the baseline's call
    assert lines.index("### this run") < lines.index(f"### {label}")
