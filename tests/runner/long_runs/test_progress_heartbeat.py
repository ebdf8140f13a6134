"""A stall moves the progress (runner/execution/heartbeat.py): while no turn finishes — a slow
provider, a 429's wait — the terminal's live totals line is redrawn once a second with its
clock moving, through the real console script on a pseudo-terminal against the loopback OpenAI
fake; in a pipe (a CI log) nothing is drawn between events. The editor's side:
tests/server/runs/test_progress.py."""

from __future__ import annotations

import asyncio
import os
import pty
import re
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.runner.test_run_cli_live import CLI, child_env, finish, start

pytestmark = pytest.mark.slow

#: Seconds the fake takes over the one answer: the stall the line must show moving.
STALL = 3.2


def _suite(folder: Path, server: FakeOpenAIServer) -> Path:
    path = folder / "agent.yaml"
    path.write_text(
        "name: stalled\n"
        f'model: {{provider: openai, name: gpt-fake, endpoint: "{server.base_url}/v1"}}\n'
        'instructions: {inline: "Echo."}\n'
        "evaluations:\n  metrics:\n    - {type: standard, metric: equality}\n"
        'test_cases:\n  - {name: slow, input: "n1", ground_truth: "n1"}\n',
        encoding="utf-8",
    )
    return path


def _read_all(fd: int) -> bytes:
    """Everything the child writes to the terminal, until it closes it."""
    chunks: list[bytes] = []
    while True:
        try:
            chunk = os.read(fd, 65536)
        except OSError:  # EIO: the child's side is closed
            break
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)


def _elapsed_while_stalled(text: str) -> list[str]:
    """The elapsed figure of each drawing of the line before the turn was answered."""
    lines = [part for part in text.split("\r\x1b[K") if "0/1 turns" in part]
    return [m.group(1) for line in lines if (m := re.search(r" · (\d+s) · ", line))]


async def test_the_live_totals_line_moves_while_no_turn_finishes(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = lambda body: Reply(text="n1", delay=STALL)
    path = _suite(tmp_path, fake_openai)
    primary, secondary = pty.openpty()
    env = child_env(tmp_path, OPENAI_API_KEY="k", COLUMNS="250", LINES="40")
    proc = await asyncio.create_subprocess_exec(
        CLI, "run", str(path), "--progress", "totals", "--color", "never", "--no-save",
        env=env, cwd=tmp_path, stdin=asyncio.subprocess.DEVNULL, stdout=secondary,
        stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    os.close(secondary)
    try:
        reading = asyncio.ensure_future(asyncio.to_thread(_read_all, primary))
        _, err = await asyncio.wait_for(proc.communicate(), 120)
        text = (await asyncio.wait_for(reading, 30)).decode("utf-8", "replace")
    finally:
        os.close(primary)
    assert proc.returncode == 0, err.decode() + text
    # Without a beat the line is drawn when the case starts and when its turn is answered:
    # one figure while stalled. With it, the clock moves at least once a second.
    seen = _elapsed_while_stalled(text)
    assert len(set(seen)) >= 3, seen
    assert int(max(seen, key=lambda s: int(s[:-1]))[:-1]) >= int(STALL) - 1, seen


async def test_a_pipe_gets_no_redraws_between_events(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = lambda body: Reply(text="n1", delay=STALL)
    path = _suite(tmp_path, fake_openai)
    args = [str(path), "--progress", "totals", "--no-save"]
    done = await finish(await start(args, child_env(tmp_path, OPENAI_API_KEY="k"), tmp_path), 120)
    assert done.status == 0, done.err
    assert "\r" not in done.out
    # A log's totals lines: the first event's and the closing one (interval 10 s).
    assert sum("0/1 turns" in line for line in done.out.splitlines()) == 1, done.out
