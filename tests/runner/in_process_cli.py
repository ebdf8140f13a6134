"""`holodeck-lsp …` inside the test's own process, for tests that check what a command did —
the reports, journal and history a run leaves, the requests it sent — rather than the console
script itself: `cli.main(argv)` on a worker thread, with the environment, folder and captured
output a child would have. A child process spends ~1.5 CPU-s starting (the interpreter and the
run's imports) before it does anything; in process, the imports are paid once per test worker.

Each behaviour a user meets at the command line keeps a test that starts the real console
script (tests/runner/test_run_cli_live.py `start` / `run_cli`); this is for the runs around it
(a reference run, a resume whose requests are counted, a `runs --json` read back).

On a thread of its own because the loopback fakes (tests/fakes/) answer on the test's event
loop, which must keep running while the command runs its own, and so that a command that hangs
fails its test after COMMAND_TIMEOUT. One command at a time per process: the environment, the
current folder and sys.stdout/sys.stderr are the process's.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import os
import threading
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.cli import main
from tests import bytecode_cache
from tests.sample.sample_support import grader_imports_isolated

#: One command at a time: it swaps process-wide state (environment, folder, output streams).
_one_at_a_time = threading.Lock()


@dataclass(frozen=True)
class Finished:
    """A command's exit status and what it printed (stdout, stderr)."""

    status: int
    out: str
    err: str

    def texts(self) -> list[str]:
        return [self.out, self.err]


#: Kept across the swap: the session's one bytecode tree (tests/bytecode_cache.py), for
#: anything the command starts in turn.
_SESSION_VARIABLES = ("PYTHONPYCACHEPREFIX", bytecode_cache.OWNED_BY)


@contextlib.contextmanager
def _as_a_child(env: Mapping[str, str], cwd: Path) -> Iterator[None]:
    """The process's environment replaced by `env` and its folder by `cwd`, then restored."""
    saved_env, saved_cwd = dict(os.environ), os.getcwd()
    kept = {name: saved_env[name] for name in _SESSION_VARIABLES if name in saved_env}
    os.environ.clear()
    os.environ.update({**kept, **env})
    os.chdir(cwd)
    try:
        yield
    finally:
        os.chdir(saved_cwd)
        os.environ.clear()
        os.environ.update(saved_env)


def _call(argv: list[str], env: Mapping[str, str], cwd: Path) -> Finished:
    out, err = io.StringIO(), io.StringIO()
    with (
        _one_at_a_time,
        _as_a_child(env, cwd),
        grader_imports_isolated(),
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
    ):
        try:
            status = main(argv)
        except SystemExit as stopped:  # argparse's usage errors and --help
            code = stopped.code
            status = code if isinstance(code, int) else (0 if code is None else 2)
    return Finished(status, out.getvalue(), err.getvalue())


#: Any one command must end within this (an upper bound never waited out by a passing test,
#: as tests/runner/test_run_cli_live.py's CHILD_TIMEOUT for a child): a hang fails the test.
COMMAND_TIMEOUT = 120.0


def _bounded(argv: list[str], env: Mapping[str, str], cwd: Path, timeout: float) -> Finished:
    """`_call` on a thread of its own, waited for at most `timeout` seconds: a command that
    hangs fails the test with its arguments instead of blocking the session (a daemon
    thread: it cannot keep the process from ending either)."""
    outcome: list[Finished | BaseException] = []

    def work() -> None:
        try:
            outcome.append(_call(argv, env, cwd))
        except BaseException as error:  # handed to the waiting test below
            outcome.append(error)

    thread = threading.Thread(target=work, name="holodeck-lsp in process", daemon=True)
    thread.start()
    thread.join(timeout)
    if not outcome:
        raise AssertionError(f"holodeck-lsp {' '.join(argv)} did not end within {timeout}s")
    (result,) = outcome
    if isinstance(result, BaseException):
        raise result
    return result


def cli_in_process_now(
    argv: list[str],
    cwd: Path | None = None,
    env: Mapping[str, str] | None = None,
    timeout: float = COMMAND_TIMEOUT,
) -> Finished:
    """`holodeck-lsp *argv` in this process, the test waiting: for commands that talk to no
    fake on the test's loop (`compare`, `runs`, a replay). `env` defaults to this process's
    environment, `cwd` to its folder."""
    environment = dict(os.environ if env is None else env)
    return _bounded(list(argv), environment, cwd or Path.cwd(), timeout)


async def cli_in_process(
    argv: list[str], env: Mapping[str, str], cwd: Path, timeout: float = COMMAND_TIMEOUT
) -> Finished:
    """`holodeck-lsp *argv` run in this process as a child started with `env` in `cwd` would
    run it; the test's event loop keeps serving the fakes meanwhile."""
    return await asyncio.to_thread(_bounded, list(argv), dict(env), cwd, timeout)


async def run_in_process(args: list[str], env: Mapping[str, str], cwd: Path) -> Finished:
    """`holodeck-lsp run *args` in this process (see `cli_in_process`)."""
    return await cli_in_process(["run", *args], env, cwd)
