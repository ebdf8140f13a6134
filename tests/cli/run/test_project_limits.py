"""holodeck-lsp.yaml `limits:` through the real console script against the loopback OpenAI
fake (runner/project_limits.py): `rpm` spaces the requests the provider sees, `max_in_flight`
caps the requests it answers at once whatever `--parallel` says.

The fake runs on the test's loop, so the child is awaited with asyncio (a blocking
`subprocess.run` would freeze the server it talks to)."""

from __future__ import annotations

import itertools
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from aiohttp import web

from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.runner.test_run_cli_live import Finished, child_env, finish, start

pytestmark = pytest.mark.slow


class TimingServer(FakeOpenAIServer):
    """The fake, noting when each chat request arrived and how many it answered at once."""

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: list[float] = []
        self.in_flight = 0
        self.most_in_flight = 0

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.arrivals.append(time.monotonic())
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return await super()._handle(request)
        finally:
            self.in_flight -= 1


@pytest.fixture
async def timing_server() -> AsyncIterator[TimingServer]:
    server = TimingServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


def _suite(folder: Path, server: FakeOpenAIServer, cases: int, limits: str) -> Path:
    lines = [
        "name: limited",
        f'model: {{provider: openai, name: gpt-fake, endpoint: "{server.base_url}/v1"}}',
        'instructions: {inline: "Echo."}',
        "evaluations:",
        "  metrics:",
        "    - {type: standard, metric: equality}",
        "test_cases:",
    ]
    lines += [f'  - {{name: c{n}, input: "n{n}", ground_truth: "n{n}"}}' for n in range(cases)]
    path = folder / "agent.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    (folder / "holodeck-lsp.yaml").write_text(limits, encoding="utf-8")
    return path


async def _run(path: Path, tmp_path: Path, parallel: int) -> Finished:
    # A console script's start takes seconds on a loaded machine: more than run_cli's 30 s.
    args = [str(path), "--parallel", str(parallel), "--no-save"]
    return await finish(await start(args, child_env(tmp_path, OPENAI_API_KEY="k"), tmp_path), 120)


def _echo(delay: float) -> Any:
    def reply(body: dict[str, Any]) -> Reply:
        return Reply(text=str(body["messages"][-1]["content"]), delay=delay)

    return reply


async def test_rpm_spaces_the_requests_the_provider_sees(
    tmp_path: Path, timing_server: TimingServer
) -> None:
    # 120 a minute is 2 a second, with a second's burst (runner/limits/bucket.py): 4 cases at
    # once are sent as 2, then one every 0.5 s — 1 s from the first to the last. The limiter
    # lets a request go before its connection is made, and on a loaded machine the first
    # two's set-up takes a few tenths of a second: the last two (on kept connections) are
    # the ones spaced exactly; without the limit all four arrive together.
    timing_server.responder = _echo(0.0)
    path = _suite(tmp_path, timing_server, 4, "limits:\n  openai:gpt-fake: {rpm: 120}\n")
    done = await _run(path, tmp_path, 4)
    assert done.status == 0, done.out + done.err
    times = timing_server.arrivals
    assert len(times) == 4
    arrived = [round(at - times[0], 3) for at in times]
    assert arrived[3] - arrived[2] >= 0.4 and arrived[3] >= 0.6, arrived


async def test_max_in_flight_1_serialises_parallel_cases(
    tmp_path: Path, timing_server: TimingServer
) -> None:
    timing_server.responder = _echo(0.3)
    path = _suite(tmp_path, timing_server, 3, "limits:\n  openai: {max_in_flight: 1}\n")
    done = await _run(path, tmp_path, 3)
    assert done.status == 0, done.out + done.err
    assert len(timing_server.arrivals) == 3
    assert timing_server.most_in_flight == 1
    # Without the limit the three would arrive together: here one answer (0.3 s) apart.
    times = timing_server.arrivals
    assert all(later - earlier >= 0.25 for earlier, later in itertools.pairwise(times))
