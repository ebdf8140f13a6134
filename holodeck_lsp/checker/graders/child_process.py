"""Running the trusted probe's child process: its own session (so a timeout kills whatever a
module spawned too), stderr drained without bound on memory, and its results file read back
even when a kill cut the last line short."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from holodeck_lsp.checker.file_reading import read_file_text


@dataclass(frozen=True, slots=True)
class ChildOutcome:
    """How the child ended: its exit code (negative: killed by that signal), whether we killed
    it for overrunning the timeout, why it could not start, and the tail of its stderr."""

    returncode: int | None = None
    timed_out: bool = False
    start_error: str | None = None
    stderr: str = ""


def run_child(command: list[str], cwd: Path, timeout: float) -> ChildOutcome:
    try:
        # A session of its own, so a timeout kills whatever the module spawned as well.
        process = subprocess.Popen(
            command,
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            start_new_session=os.name == "posix",
        )
    except OSError as exc:
        return ChildOutcome(start_error=f"could not start {command[0]} in {cwd}: {exc}")
    assert process.stderr is not None
    stderr = TailReader(process.stderr)
    stderr.start()
    timed_out = False
    try:
        process.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        timed_out = True
    finally:
        if process.poll() is None:  # timed out, or we were interrupted: never leave it running
            _kill(process)
            process.wait()
    # Something the module spawned may still hold the pipe open: do not wait for it long.
    stderr.join(timeout=1.0)
    return ChildOutcome(process.returncode, timed_out, stderr=stderr.text())


class TailReader(threading.Thread):
    """Drains a pipe, keeping only its last `limit` bytes: a module may print without pause
    until the timeout, and neither memory nor disk should pay for that."""

    def __init__(self, pipe: IO[bytes], limit: int = 64 * 1024) -> None:
        super().__init__(name="grader-probe-stderr", daemon=True)
        self.pipe = pipe
        self.limit = limit
        self.buffer = bytearray()
        self.lock = threading.Lock()

    def run(self) -> None:
        with self.pipe:
            while chunk := os.read(self.pipe.fileno(), 65536):
                with self.lock:
                    self.buffer += chunk
                    del self.buffer[: -self.limit]

    def text(self) -> str:
        with self.lock:
            return self.buffer.decode("utf-8", errors="replace")


def _kill(process: subprocess.Popen[bytes]) -> None:
    if sys.platform != "win32":
        try:
            os.killpg(process.pid, signal.SIGKILL)
            return
        except (ProcessLookupError, PermissionError):
            pass
    process.kill()


def read_records(path: Path) -> list[dict[str, Any]]:
    """The child's JSON lines that name a grader (`spec`); anything else is skipped."""
    records: list[dict[str, Any]] = []
    for line in _read_text(path).splitlines():
        try:
            record = json.loads(line)
        except ValueError:
            continue  # a line cut short by a kill
        if isinstance(record, dict) and isinstance(record.get("spec"), str):
            records.append(record)
    return records


def _read_text(path: Path) -> str:
    try:
        return read_file_text(path, "utf-8", errors="replace")
    except OSError:
        return ""
