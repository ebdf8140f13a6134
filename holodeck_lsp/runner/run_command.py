"""`holodeck-lsp run PATH …`: load the suite, pick a backend (or a cassette), run, write
reports. See docs/running.md.

Exit status: 0 every case passed; 1 some case failed (a timeout, backend error or stale
cassette entry inside a case fails that case, never the run); 2 configuration error (the
loader's diagnostics are printed as `--check` prints them) or bad arguments; 3 the run cannot
proceed (no usable backend, unreadable cassette, a report or cassette that cannot be written).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import os
import signal
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from holodeck_lsp.config.discovery import PathsNotFoundError, find_agent_files
from holodeck_lsp.config.formats import build_report, render
from holodeck_lsp.config.loader import load_agent_file
from holodeck_lsp.engine.reports import json_report, junit, markdown
from holodeck_lsp.engine.turn_grading import GradingOptions
from holodeck_lsp.runner.backend import AgentBackend, BackendInitError
from holodeck_lsp.runner.cassette import (
    CassetteFormatError,
    RecordingBackend,
    ReplayBackend,
    load_cassette,
)
from holodeck_lsp.runner.executor import RunOptions, run_suite
from holodeck_lsp.runner.grader_loading import default_grader_timeout
from holodeck_lsp.runner.progress import TerminalProgress, TextStream
from holodeck_lsp.runner.secrets import RedactingFilter, Redactor, collect_secrets
from holodeck_lsp.runner.selection import Selection, SelectionError, plan_cases
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestReport

EXIT_PASSED = 0
EXIT_FAILED = 1
EXIT_CONFIG = 2
EXIT_CANNOT_RUN = 3


def main(argv: list[str]) -> int:
    # Ctrl-C is ours from the start, not only while cases run: creating the backend (importing
    # an SDK, loading tools) takes seconds, and a Ctrl-C then must not lose the report either.
    with _CtrlC() as ctrl_c:
        return _main(argv, ctrl_c)


def _main(argv: list[str], ctrl_c: _CtrlC) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:  # --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else EXIT_CONFIG
    if args.record and args.replay:
        return _fail(EXIT_CONFIG, "--record and --replay cannot be used together")

    path = _agent_path(args.path)
    if path is None:
        return EXIT_CONFIG
    loaded = load_agent_file(path)
    if loaded.errors or loaded.agent is None:
        sys.stderr.write(render(build_report([(path, loaded.diagnostics)]), "text"))
        return EXIT_CONFIG
    agent = loaded.agent
    agent_dir = path.parent
    if not agent.test_cases:
        return _fail(EXIT_CONFIG, f"{path} has no test cases to run")
    selection = Selection(case=args.case, turn=args.turn)
    try:
        plan_cases(agent, selection)
    except SelectionError as error:
        return _fail(EXIT_CONFIG, str(error))

    redactor = Redactor(collect_secrets(agent, os.environ, _agent_files(path, agent)))
    _redact_logs(redactor)
    backend, status = _backend(args, agent, agent_dir, redactor)
    if backend is None:
        return status
    grading = GradingOptions(
        grader_timeout=args.grader_timeout
        if args.grader_timeout is not None
        else default_grader_timeout()
    )
    mode = "replay" if args.replay else "record" if args.record else "live"
    options = RunOptions.for_agent(
        agent,
        parallel=args.parallel,
        grading=grading,
        config_path=path,
        environment={"mode": mode},
    )
    stream = _RedactedStream(sys.stdout, redactor)
    progress = None if args.quiet else TerminalProgress(stream)
    started = time.perf_counter()
    report = asyncio.run(_run(agent, agent_dir, backend, selection, options, progress, ctrl_c))
    elapsed = time.perf_counter() - started

    if progress is not None:
        progress.finish(report)
    status = _write_outputs(args, report, backend, redactor)
    summary = report.summary
    cancelled = " (cancelled)" if report.environment.get("cancelled") else ""
    stream.write(
        f"{summary.passed} passed, {summary.failed} failed of {summary.total_tests} test cases"
        f" ({summary.passed_turns}/{summary.total_turns} turns) in {elapsed:.1f}s{cancelled}\n"
    )
    stream.flush()
    if status != EXIT_PASSED:
        return status
    return EXIT_FAILED if summary.failed else EXIT_PASSED


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp run",
        description="Run an agent's test cases and grade them (see docs/running.md).",
    )
    parser.add_argument("path", type=Path, metavar="PATH", help="agent.yaml, or its folder")
    parser.add_argument(
        "--case", metavar="NAME|INDEX", help="run one case: its name, or its 0-based position"
    )
    parser.add_argument(
        "--turn",
        type=_non_negative,
        metavar="N",
        help="with --case: grade only turn N (0-based); turns 0..N-1 are sent as context",
    )
    parser.add_argument(
        "--parallel",
        type=_positive_int,
        metavar="N",
        help="cases run at once (default: execution.parallel_test_cases, else "
        "$HOLODECK_PARALLEL_TEST_CASES, else 1)",
    )
    parser.add_argument("--record", type=Path, metavar="FILE", help="record a cassette")
    parser.add_argument(
        "--replay", type=Path, metavar="FILE", help="answer from a cassette (no backend)"
    )
    parser.add_argument("--report-json", type=Path, metavar="FILE", help="write a JSON report")
    parser.add_argument("--report-md", type=Path, metavar="FILE", help="write a Markdown report")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    parser.add_argument("--quiet", action="store_true", help="print only the summary line")
    parser.add_argument(
        "--grader-timeout",
        type=_positive_float,
        metavar="S",
        help="seconds a code grader may run (default $HOLODECK_GRADER_TIMEOUT or 30)",
    )
    return parser


def _non_negative(text: str) -> int:
    value = int(text)
    if value < 0:
        raise argparse.ArgumentTypeError("must be 0 or more")
    return value


def _positive_int(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _positive_float(text: str) -> float:
    value = float(text)
    if not value > 0:
        raise argparse.ArgumentTypeError("must be a positive number of seconds")
    return value


def _agent_path(path: Path) -> Path | None:
    try:
        found = find_agent_files([path])
    except PathsNotFoundError:
        _fail(EXIT_CONFIG, f"no such file or directory: {path}")
        return None
    if len(found) != 1:
        what = "no agent file" if not found else f"{len(found)} agent files"
        _fail(EXIT_CONFIG, f"{path}: {what} found; name one agent.yaml to run")
        return None
    return found[0]


def _agent_files(path: Path, agent: Agent) -> list[Path]:
    files = [path]
    if agent.test_cases_file:
        files.append(path.parent / agent.test_cases_file)
    return files


def _backend(
    args: argparse.Namespace, agent: Agent, agent_dir: Path, redactor: Redactor
) -> tuple[AgentBackend | None, int]:
    if args.replay:
        try:
            return ReplayBackend(load_cassette(args.replay), agent), EXIT_PASSED
        except CassetteFormatError as error:
            return None, _fail(EXIT_CANNOT_RUN, redactor.text(str(error)))
    # Only now: importing the backends package (and an SDK) is what a live run pays for.
    from holodeck_lsp.runner.backends import create_backend

    try:
        backend: AgentBackend = create_backend(agent, agent_dir)
    except BackendInitError as error:
        return None, _fail(EXIT_CANNOT_RUN, redactor.text(str(error)))
    except Exception as error:  # a backend constructor bug: still "cannot run", with the cause
        message = f"the backend could not start: {type(error).__name__}: {error}"
        return None, _fail(EXIT_CANNOT_RUN, redactor.text(message))
    if args.record:
        return RecordingBackend(backend, agent.name), EXIT_PASSED
    return backend, EXIT_PASSED


async def _run(
    agent: Agent,
    agent_dir: Path,
    backend: AgentBackend,
    selection: Selection,
    options: RunOptions,
    progress: TerminalProgress | None,
    ctrl_c: _CtrlC,
) -> TestReport:
    cancel = asyncio.Event()
    try:
        with ctrl_c.cancelling(asyncio.get_running_loop(), cancel):
            return await run_suite(
                agent,
                agent_dir,
                backend,
                selection=selection,
                options=options,
                progress=progress,
                cancel=cancel,
            )
    finally:
        try:
            await backend.aclose()
        except Exception:  # the report is complete; a failing cleanup is only logged
            logging.getLogger(__name__).warning("closing the backend failed", exc_info=True)


class _CtrlC:
    """SIGINT for the whole command. The first Ctrl-C cancels gracefully: during the run it
    sets the run's `cancel` event (sessions closed, unanswered turns skipped as `cancelled`);
    before the run it makes the run start cancelled; after it, the reports are still written.
    The second Ctrl-C interrupts at once (KeyboardInterrupt, as Python's default)."""

    def __init__(self) -> None:
        self.pressed = False
        self._wake: Callable[[], object] | None = None
        self._previous: Any = None
        self._installed = False

    def __enter__(self) -> _CtrlC:
        try:
            previous = signal.getsignal(signal.SIGINT)
            if previous is not signal.SIG_IGN:  # e.g. started in the background: keep ignoring
                signal.signal(signal.SIGINT, self._on_interrupt)
                self._previous, self._installed = previous, True
        except ValueError:  # not the main thread: Ctrl-C is not ours to handle
            pass
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            previous = self._previous if self._previous is not None else signal.SIG_DFL
            signal.signal(signal.SIGINT, previous)

    def _on_interrupt(self, signum: int, frame: FrameType | None) -> None:
        if self.pressed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            raise KeyboardInterrupt
        self.pressed = True
        if self._wake is not None:
            self._wake()

    @contextlib.contextmanager
    def cancelling(self, loop: asyncio.AbstractEventLoop, cancel: asyncio.Event) -> Iterator[None]:
        """While the run goes on, Ctrl-C sets `cancel`. The handler runs between bytecodes of
        the main thread, maybe while the loop waits in select: `call_soon_threadsafe` wakes it."""
        if self.pressed:
            cancel.set()
        self._wake = lambda: loop.call_soon_threadsafe(cancel.set)
        try:
            yield
        finally:
            self._wake = None


@dataclass(frozen=True, slots=True)
class _Output:
    path: Path
    render: Callable[[], str]


def _write_outputs(
    args: argparse.Namespace, report: TestReport, backend: AgentBackend, redactor: Redactor
) -> int:
    masked = redactor.report(report)
    outputs: list[_Output] = []
    if args.report_json:
        outputs.append(_Output(args.report_json, lambda: json_report.render(masked)))
    if args.report_md:
        outputs.append(_Output(args.report_md, lambda: markdown.render(masked)))
    if args.junit:
        outputs.append(_Output(args.junit, lambda: junit.render(masked)))
    if args.record and isinstance(backend, RecordingBackend):
        outputs.append(_Output(args.record, lambda: backend.cassette().render(redactor.data)))
    status = EXIT_PASSED
    for output in outputs:
        try:
            output.path.parent.mkdir(parents=True, exist_ok=True)
            # The renderers already saw masked data; masking the text too catches a secret
            # split or re-encoded by a renderer in a way the data pass could not see.
            output.path.write_text(redactor.text(output.render()), encoding="utf-8")
        except OSError as error:
            status = _fail(
                EXIT_CANNOT_RUN, f"cannot write {output.path}: {error.strerror or error}"
            )
    return status


class _RedactedStream:
    """stdout with secrets masked (progress lines carry case names and errors)."""

    def __init__(self, inner: TextStream, redactor: Redactor) -> None:
        self._inner = inner
        self._redactor = redactor
        self.encoding: str = getattr(inner, "encoding", None) or "utf-8"

    def write(self, text: str, /) -> int:
        return self._inner.write(self._redactor.text(text))

    def flush(self) -> None:
        self._inner.flush()

    def isatty(self) -> bool:
        return self._inner.isatty()


def _redact_logs(redactor: Redactor) -> None:
    logging.basicConfig(level=logging.WARNING, format="holodeck-lsp: %(levelname)s: %(message)s")
    for handler in logging.getLogger().handlers:
        for old in [f for f in handler.filters if isinstance(f, RedactingFilter)]:
            handler.removeFilter(old)  # a previous run in this process had other secrets
        handler.addFilter(RedactingFilter(redactor))


def _fail(status: int, message: str) -> int:
    print(f"holodeck-lsp: error: {message}", file=sys.stderr)
    return status
