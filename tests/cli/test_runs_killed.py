"""`holodeck-lsp runs` of a run killed with SIGKILL (no run.json was ever written): its models
and case counts come from its journal (runner/run_history/unfinished.py), not `-` and `0/0`."""

from __future__ import annotations

import asyncio
import signal
import time
from pathlib import Path

import pytest

from tests.cli.test_pasted_hints import KEY, _agent, paste
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.runner.test_run_cli_live import child_env, start

pytestmark = pytest.mark.slow


async def test_a_killed_runs_models_and_counts_come_from_its_journal(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    path = _agent(tmp_path / "suite", fake_openai)
    fake_openai.responder = lambda body: Reply(text=str(body["messages"][-1]["content"]), delay=0.4)
    env = child_env(tmp_path, OPENAI_API_KEY=KEY, XDG_CACHE_HOME=str(tmp_path / "cache"))
    proc = await start([str(path), "--parallel", "1"], env, tmp_path)
    runs = path.parent / ".holodeck" / "runs"
    deadline = time.monotonic() + 30
    try:
        while True:  # two cases journaled, the third in flight
            journals = list(runs.glob("*/journal.jsonl")) if runs.is_dir() else []
            lines = journals[0].read_text("utf-8").count('"kind":"case"') if journals else 0
            if lines >= 2:
                break
            assert time.monotonic() < deadline and proc.returncode is None
            await asyncio.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
    finally:
        if proc.returncode is None:
            proc.kill()
        await proc.wait()
    status, listed = await paste(f"holodeck-lsp runs {path}", tmp_path, env)
    assert status == 0, listed
    (row,) = [line for line in listed.splitlines() if "unfinished" in line]
    assert "openai:gpt-fake" in row, listed
    # At least the two journaled cases passed, of the 4 the run has (the kill may have let
    # the third finish too).
    assert " 2/4 " in row or " 3/4 " in row, listed
