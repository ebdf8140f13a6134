"""The installed `holodeck-lsp serve` ends with 0 however its client leaves: after the
initialize → initialized → shutdown → exit sequence (repeated: the abort it once had, SIGABRT
and `FATAL: exception not rethrown` when the warm-up import was still running at exit, came
in about 1 spawn of 30 — see server/threads.py), when the client only closes stdin, and when
the client dies (both pipes gone while the server still has answers to write).

The spawns also check what prevents that abort, in each spawn rather than by chance: the
warm-up thread was waited for (`threads.settle`), so the server never logs "threads still
running at exit". With the warm-up started as a plain daemon thread again (the state before
the fix), every spawn logged it: 20 of 20 on 2026-12-06 morning, and 40 of 40 again at
12:03 UTC (load 10-15) — while the abort itself came in 0 of 120 spawns in the morning. That
the server's loop end waits for its threads at all (`serve_stdio` calling `threads.settle`)
is checked once, deterministically, by a thread that outlives the loop by a second
(`test_the_server_waits_for_its_threads_at_exit`): without that call only the abort's chance
would show it (1 spawn of 20 at 12:06 UTC). So the sequence's count went from 200 to 50 and
then to 12 (docs/benchmarks.md, "Cuts of 2026-12-06 (issue 37)").

Raw JSON-RPC over the real pipes, so each spawn costs only the server's start."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.server.lsp_client import SERVER_ENV, installed_server

#: Spawns of the exit sequence; run `BATCH` at a time (the machine has 2 cores). Each spawn
#: shows the regression with certainty (the log line, module docstring): 12 is for the exit
#: status's own chance, not for power against the known cause.
SPAWNS = 12
BATCH = 4
TIMEOUT_S = 60.0
#: What `threads.settle` logs when a thread is still running as the server exits.
UNSETTLED = "threads still running at exit"


def frame(message: dict[str, Any]) -> bytes:
    body = json.dumps({"jsonrpc": "2.0", **message}).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


async def answer(server: asyncio.subprocess.Process, request_id: int) -> dict[str, Any]:
    """Read messages until the answer to `request_id` (notifications are skipped)."""
    assert server.stdout is not None
    while True:
        length = 0
        while (line := await server.stdout.readline()) not in (b"\r\n", b""):
            name, _, value = line.decode("ascii").partition(":")
            if name.lower() == "content-length":
                length = int(value)
        assert line, "the server closed stdout before answering"
        message: dict[str, Any] = json.loads(await server.stdout.readexactly(length))
        if message.get("id") == request_id:
            return message


async def started(root: Path) -> asyncio.subprocess.Process:
    """A server past initialize and initialized (its warm-up import now starting)."""
    server = await asyncio.create_subprocess_exec(
        installed_server(),
        "serve",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        env=SERVER_ENV,
        cwd=root,
    )
    assert server.stdin is not None
    params = {"processId": None, "rootUri": root.as_uri(), "capabilities": {}}
    server.stdin.write(frame({"id": 1, "method": "initialize", "params": params}))
    assert "capabilities" in (await answer(server, 1))["result"]
    server.stdin.write(frame({"method": "initialized", "params": {}}))
    await server.stdin.drain()
    return server


async def ended(server: asyncio.subprocess.Process) -> tuple[int, str]:
    """The exit status and stderr, once the server has ended by itself."""
    assert server.stderr is not None
    stderr, _ = await asyncio.wait_for(
        asyncio.gather(server.stderr.read(), server.wait()), TIMEOUT_S
    )
    return server.returncode if server.returncode is not None else -999, stderr.decode()


async def through_exit(root: Path) -> tuple[int, str]:
    server = await started(root)
    assert server.stdin is not None and server.stdout is not None
    server.stdin.write(frame({"id": 2, "method": "shutdown"}))
    assert (await answer(server, 2))["result"] is None
    server.stdin.write(frame({"method": "exit"}))
    await server.stdin.drain()
    server.stdin.close()
    await server.stdout.read()
    return await ended(server)


@pytest.mark.slow
async def test_the_exit_sequence_ends_with_0_every_time(tmp_path: Path) -> None:
    statuses: list[tuple[int, str]] = []
    for first in range(0, SPAWNS, BATCH):
        batch = [through_exit(tmp_path) for _ in range(min(BATCH, SPAWNS - first))]
        statuses += await asyncio.gather(*batch)
    failed = [(status, stderr[-500:]) for status, stderr in statuses if status != 0]
    assert not failed, f"{len(failed)} of {SPAWNS} spawns failed, e.g. {failed[0]}"
    unsettled = [stderr[-500:] for _, stderr in statuses if UNSETTLED in stderr]
    assert not unsettled, f"{len(unsettled)} of {SPAWNS} exited under a thread: {unsettled[0]}"


async def test_exit_ends_the_server_even_when_stdin_stays_open(tmp_path: Path) -> None:
    server = await started(tmp_path)
    assert server.stdin is not None
    server.stdin.write(frame({"id": 2, "method": "shutdown"}))
    await answer(server, 2)
    server.stdin.write(frame({"method": "exit"}))
    await server.stdin.drain()
    status, stderr = await ended(server)
    server.stdin.close()
    assert status == 0, stderr
    assert UNSETTLED not in stderr, stderr


async def test_a_client_that_closes_stdin_leaves_exit_0(tmp_path: Path) -> None:
    server = await started(tmp_path)
    assert server.stdin is not None
    server.stdin.close()  # no shutdown, no exit: the editor just went away
    status, stderr = await ended(server)
    assert status == 0, stderr
    assert UNSETTLED not in stderr, stderr


async def test_a_client_that_dies_mid_request_leaves_exit_0(tmp_path: Path) -> None:
    """Both pipes go away (what the kernel does to a killed client) right after a didOpen
    and a hover: the server's answers meet a broken pipe."""
    server = await started(tmp_path)
    assert server.stdin is not None and server.stdout is not None
    uri = (tmp_path / "agent.yaml").as_uri()
    text = "name: x\nmodel: {provider: nope}\n"
    document = {"uri": uri, "languageId": "yaml", "version": 1, "text": text}
    server.stdin.write(
        frame({"method": "textDocument/didOpen", "params": {"textDocument": document}})
    )
    position = {"line": 0, "character": 1}
    hover = {"textDocument": {"uri": uri}, "position": position}
    server.stdin.write(frame({"id": 3, "method": "textDocument/hover", "params": hover}))
    await server.stdin.drain()
    server.stdin.close()
    server._transport.get_pipe_transport(1).close()  # type: ignore[attr-defined]
    status, stderr = await ended(server)
    assert status == 0, stderr
    assert UNSETTLED not in stderr, stderr


#: A server whose stdin ends at once, beside a thread of its own (`threads.start`) that is
#: still sleeping when the loop ends: `serve_stdio` must wait for it before returning.
WAITS_FOR_THREADS = """
import sys, time
from holodeck_lsp.server import app, threads
def late() -> None:
    time.sleep(1.0)
    print("the thread ended", file=sys.stderr, flush=True)
threads.start(late, "late-thread")
print("left:", app.serve_stdio(), file=sys.stderr, flush=True)
"""


def test_the_server_waits_for_its_threads_at_exit(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-c", WAITS_FOR_THREADS],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=SERVER_ENV,
        cwd=tmp_path,
        timeout=TIMEOUT_S,
    )
    assert done.returncode == 0, done.stderr
    lines = done.stderr.splitlines()
    assert lines[-2:] == ["the thread ended", "left: []"], done.stderr
