"""One code-server + Chromium for the VS Code scenarios of a test process (vscode_host.mjs).

Starting code-server, installing the .vsix into it and launching Chromium cost each scenario
script run alone a few CPU-seconds; none of them changes that set-up (each scenario opens
its own copy of the sample in its own window and browser context). So the tests send their
scenarios to one host, started on the first scenario and stopped once the next test to run
needs none (tests/e2e/conftest.py), or when the process exits. A scenario that times out ends
the host: the next one starts a fresh one.
"""

from __future__ import annotations

import atexit
import json
import os
import queue
import signal
import subprocess
import threading
from pathlib import Path
from typing import IO

HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]
#: The host's own start: code-server and Chromium (a few seconds; minutes on a busy machine).
START_TIMEOUT = 300
#: Seconds a stopped host gets to close its browser and code-server before it is killed.
STOP_TIMEOUT = 30


class HostError(Exception):
    """The host did not start, died, or a scenario overran its time: the message says which."""


class VSCodeHost:
    """A running vscode_host.mjs: `run(script, args)` sends it one scenario and returns
    (passed, output)."""

    def __init__(self, node: str, host_args: list[str], log: Path) -> None:
        self.log = log
        self._stderr = log.open("a", encoding="utf-8")
        self.process = subprocess.Popen(
            [node, str(HERE / "vscode_host.mjs"), *host_args],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=self._stderr,
            text=True,
            start_new_session=True,
        )
        self._replies: queue.Queue[str | None] = queue.Queue()
        assert self.process.stdout is not None
        pump = threading.Thread(target=_pump, args=(self.process.stdout, self._replies))
        pump.daemon = True
        pump.start()
        ready = self._reply(START_TIMEOUT, "starting code-server and Chromium")
        if not ready.get("ready"):
            self.stop()
            raise HostError(f"the host did not start: {ready.get('error')} (its log: {log})")

    def _reply(self, timeout: float, doing: str) -> dict[str, object]:
        try:
            line = self._replies.get(timeout=timeout)
        except queue.Empty:
            self.stop()
            raise HostError(
                f"{doing}: no answer from the host within {timeout:.0f} s (its log: {self.log})"
            ) from None
        if line is None:
            self.stop()
            raise HostError(f"{doing}: the host exited (its log: {self.log})")
        reply: dict[str, object] = json.loads(line)
        return reply

    def run(self, script: str, args: list[str], timeout: float) -> tuple[bool, str]:
        assert self.process.stdin is not None
        self.process.stdin.write(json.dumps({"script": script, "args": args}) + "\n")
        self.process.stdin.flush()
        reply = self._reply(timeout, f"{script} timed out after {timeout:.0f} s")
        return bool(reply["ok"]), str(reply["output"])

    def alive(self) -> bool:
        return self.process.poll() is None

    def stop(self) -> None:
        """Close stdin (the host stops code-server and Chromium, then exits); kill its process
        group if it takes longer than STOP_TIMEOUT."""
        if self.process.poll() is None:
            try:
                assert self.process.stdin is not None
                self.process.stdin.close()
                self.process.wait(STOP_TIMEOUT)
            except (OSError, subprocess.TimeoutExpired):
                try:
                    os.killpg(self.process.pid, signal.SIGTERM)
                    self.process.wait(STOP_TIMEOUT)
                except (OSError, subprocess.TimeoutExpired):
                    os.killpg(self.process.pid, signal.SIGKILL)
                    self.process.wait()
        self._stderr.close()


def _pump(stream: IO[str], into: queue.Queue[str | None]) -> None:
    """The host's stdout, a line at a time, into `into` (None at its end)."""
    for line in stream:
        if line.startswith("{"):
            into.put(line)
    into.put(None)


_current: VSCodeHost | None = None


def shared_host(node: str, host_args: list[str], log: Path) -> VSCodeHost:
    """This process's host, started if none runs."""
    global _current
    if _current is None or not _current.alive():
        _current = VSCodeHost(node, host_args, log)
    return _current


def stop_shared_host() -> None:
    global _current
    if _current is not None:
        _current.stop()
        _current = None


atexit.register(stop_shared_host)
