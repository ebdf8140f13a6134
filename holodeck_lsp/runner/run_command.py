"""`holodeck-lsp run PATH …`: load the suite, run it through `run_session` (the same run path
as the editor's: backend or cassette, secrets masked), write reports. See docs/running.md.

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
from holodeck_lsp.engine.reports import html, json_report, junit, markdown
from holodeck_lsp.runner.progress import TerminalProgress, TextStream
from holodeck_lsp.runner.run_session import (
    Answers,
    Live,
    Replay,
    RunCannotStart,
    RunFailed,
    RunOutcome,
    RunRequest,
    RunSession,
)
from holodeck_lsp.runner.secrets import Redactor
from holodeck_lsp.runner.selection import Selection, SelectionError, plan_cases

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
    if args.rejudge and not args.replay:
        return _fail(EXIT_CONFIG, "--rejudge re-judges a replay: use it with --replay FILE")

    path = _agent_path(args.path)
    if path is None:
        return EXIT_CONFIG
    loaded = load_agent_file(path)
    if loaded.errors or loaded.agent is None:
        sys.stderr.write(render(build_report([(path, loaded.diagnostics)]), "text"))
        return EXIT_CONFIG
    agent = loaded.agent
    if not agent.test_cases:
        return _fail(EXIT_CONFIG, f"{path} has no test cases to run")
    selection = Selection(case=args.case, turn=args.turn)
    try:
        plan_cases(agent, selection)
    except SelectionError as error:
        return _fail(EXIT_CONFIG, str(error))

    _configure_logs()
    answers: Answers = Replay(args.replay) if args.replay else Live(record=bool(args.record))
    request = RunRequest(
        agent,
        path,
        answers=answers,
        selection=selection,
        parallel=args.parallel,
        grader_timeout=args.grader_timeout,
        rejudge=args.rejudge,
    )
    try:
        # In the main thread, before the loop: a second Ctrl-C must interrupt a slow start.
        session = RunSession.open(request)
    except RunCannotStart as error:
        return _fail(EXIT_CANNOT_RUN, str(error))
    redactor = session.redactor
    stream = _RedactedStream(sys.stdout, redactor)
    progress = None if args.quiet else TerminalProgress(stream)
    started = time.perf_counter()
    try:
        outcome = asyncio.run(_run(session, progress, ctrl_c))
    except RunFailed as error:  # a bug, not the suite's fault: say so without a traceback
        return _fail(EXIT_CANNOT_RUN, f"the run failed: {error}")
    elapsed = time.perf_counter() - started
    report = outcome.report

    if progress is not None:
        progress.finish(report)
    status = _write_outputs(args, outcome, redactor)
    summary = report.summary
    cancelled = " (cancelled)" if report.environment.get("cancelled") else ""
    stream.write(
        f"{summary.passed} passed, {summary.failed} failed of {summary.total_tests} test cases"
        f" ({summary.passed_turns}/{summary.total_turns} turns) in {elapsed:.1f}s{cancelled}\n"
    )
    judge_line = _judge_tokens_line(report)
    if judge_line:
        stream.write(judge_line)
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
    parser.add_argument(
        "--rejudge",
        action="store_true",
        help="with --replay: call the judges again instead of reusing recorded verdicts",
    )
    parser.add_argument("--report-json", type=Path, metavar="FILE", help="write a JSON report")
    parser.add_argument("--report-md", type=Path, metavar="FILE", help="write a Markdown report")
    parser.add_argument(
        "--report-html", type=Path, metavar="FILE", help="write a self-contained HTML report"
    )
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    parser.add_argument("--quiet", action="store_true", help="print only the summary line")
    parser.add_argument(
        "--grader-timeout",
        type=_positive_float,
        metavar="S",
        help="seconds a code grader may run (default $HOLODECK_GRADER_TIMEOUT or 30)",
    )
    return parser


def _judge_tokens_line(report: Any) -> str:
    """`judge tokens: N (agent: M)` — what grading cost, apart from the agent's answers."""
    judge = report.summary.judge_token_usage
    if judge is None:
        return ""
    usages = [r.token_usage for r in report.results if r.token_usage is not None]
    agent = sum(u.total_tokens for u in usages)
    source = "recorded; " if report.environment.get("judges") == "replay" else ""
    return f"judge tokens: {judge.total_tokens:,} ({source}agent: {agent:,})\n"


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


async def _run(
    session: RunSession, progress: TerminalProgress | None, ctrl_c: _CtrlC
) -> RunOutcome:
    cancel = asyncio.Event()
    with ctrl_c.cancelling(asyncio.get_running_loop(), cancel):
        return await session.run(progress, cancel)


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


def _write_outputs(args: argparse.Namespace, outcome: RunOutcome, redactor: Redactor) -> int:
    masked, recording = outcome.report, outcome.recording
    outputs: list[_Output] = []
    if args.report_json:
        outputs.append(_Output(args.report_json, lambda: json_report.render(masked)))
    if args.report_md:
        outputs.append(_Output(args.report_md, lambda: markdown.render(masked)))
    if args.report_html:
        outputs.append(_Output(args.report_html, lambda: html.render(masked)))
    if args.junit:
        outputs.append(_Output(args.junit, lambda: junit.render(masked)))
    if args.record and recording is not None:
        outputs.append(_Output(args.record, recording.render))
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


def _configure_logs() -> None:
    """Warnings and errors on stderr; the run session masks its secrets in them."""
    logging.basicConfig(level=logging.WARNING, format="holodeck-lsp: %(levelname)s: %(message)s")


def _fail(status: int, message: str) -> int:
    print(f"holodeck-lsp: error: {message}", file=sys.stderr)
    return status
