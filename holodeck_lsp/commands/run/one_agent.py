"""One agent file's run inside `holodeck-lsp run`: load it, run it through `run_session`,
store it, write its outputs and print its closing lines. A folder of agent files is one run
of several of these (commands/run/main.py adds the grand total, commands/run/folder_run.py).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import os
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.loader import load_agent_file
from holodeck_lsp.commands._common import fail, warn
from holodeck_lsp.commands.console.case_progress import TerminalProgress
from holodeck_lsp.commands.console.closing_lines import closing_lines
from holodeck_lsp.commands.console.redacted_stream import RedactedStream
from holodeck_lsp.commands.console.text_stream import TextStream
from holodeck_lsp.commands.console.totals_bar import AggregateProgress, choose_display
from holodeck_lsp.commands.run.baseline import baseline_comparison
from holodeck_lsp.commands.run.command_clock import CommandClock
from holodeck_lsp.commands.run.ctrl_c import CtrlC
from holodeck_lsp.commands.run.lifecycle_flags import lifecycle_request
from holodeck_lsp.commands.run.outputs import write_outputs
from holodeck_lsp.commands.run.resume_run import resuming_line, unfinished_line
from holodeck_lsp.commands.run.run_status import run_status
from holodeck_lsp.commands.run.startup_heap import freeze_startup_heap
from holodeck_lsp.commands.run.turn_counts import turns_phrase
from holodeck_lsp.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RUN,
    EXIT_OK,
    EXIT_TEST_FAILED,
)
from holodeck_lsp.reports.check import build_report, render
from holodeck_lsp.runner.backends.backend_logs import console_backend_logs
from holodeck_lsp.runner.execution.executor import resolve_parallelism
from holodeck_lsp.runner.execution.heartbeat import heartbeat
from holodeck_lsp.runner.lifecycle.finishing import FinishedRun, finish_run
from holodeck_lsp.runner.lifecycle.preparing import BadRunRequest, PreparedRun, prepare_run
from holodeck_lsp.runner.lifecycle.starting import StartedRun, start_run
from holodeck_lsp.runner.models.model_matrix import model_label
from holodeck_lsp.runner.models.run_models import matrix_note
from holodeck_lsp.runner.run_history.layout import pasteable
from holodeck_lsp.runner.run_session import (
    Live,
    Replay,
    RunCannotStart,
    RunFailed,
    RunOutcome,
    RunSession,
)
from holodeck_lsp.runner.secrets import Redactor
from holodeck_lsp.schema.results import TestReport
from holodeck_lsp.terminal import Palette, wants_color


@dataclass(slots=True)
class AgentRun:
    """What a folder run needs of one agent's run for its grand total."""

    path: Path
    report: TestReport
    redactor: Redactor


def run_agent(
    args: argparse.Namespace,
    path: Path,
    ctrl_c: CtrlC,
    clock: CommandClock,
    finished: list[AgentRun] | None = None,
) -> int:
    """Run one agent file; its exit status. A run that ends with a report adds it to
    `finished`."""
    agent_started = time.perf_counter()
    palette = Palette(wants_color(args.color, sys.stdout))
    loaded = load_agent_file(path)
    if loaded.errors or loaded.agent is None:
        sys.stderr.write(render(build_report([(path, loaded.diagnostics)]), "text"))
        return EXIT_BAD_INPUT
    _print_warnings(path, loaded.diagnostics)
    try:
        prepared = prepare_run(lifecycle_request(args, loaded.agent, path))
    except BadRunRequest as error:
        return fail(EXIT_BAD_INPUT, str(error))
    for note in prepared.notes:
        print(f"holodeck-lsp: {note}", file=sys.stderr)
    shard = prepared.selection.shard
    if not prepared.planned and shard is not None:
        # More shards than the hash gave this suite's cases: nothing to run is not a failure
        # of a CI matrix job (docs/running.md, "Splitting a suite across machines").
        print(f"holodeck-lsp: shard {shard} holds none of {path.name}'s cases")
        return EXIT_OK
    _configure_logs(args.verbose)
    # Before the backend starts (an SDK import takes seconds): the run has visibly begun.
    if not args.quiet:
        print(first_line(prepared), flush=True)
        if prepared.resumed is not None:
            print(resuming_line(prepared), flush=True)
    try:
        # In the main thread, before the loop: a second Ctrl-C must interrupt a slow start.
        started = start_run(prepared, now=datetime.now().astimezone(), warn=warn)
    except RunCannotStart as error:
        return fail(EXIT_CANNOT_RUN, str(error))
    freeze_startup_heap()  # the SDKs are imported now: no full collections over them
    session = started.session
    for note in session.notes:
        warn(note)
    stream = RedactedStream(sys.stdout, session.redactor)
    progress = None if args.quiet else _display(args, started, stream, palette)
    try:
        outcome = ctrl_c.run_until_done(_run(session, progress, ctrl_c))
    except RunFailed as error:  # a bug, not the suite's fault: say so without a traceback
        started.journal.close()
        return fail(EXIT_CANNOT_RUN, f"the run failed: {error}")
    done = finish_run(started, outcome, interrupted=ctrl_c.pressed, warn=warn)
    if finished is not None:
        finished.append(AgentRun(path, done.outcome.report, session.redactor))
    # The command's wall time, start-up included; in a folder run, this agent file's (the
    # grand total has the command's).
    elapsed = clock.elapsed() if finished is None else time.perf_counter() - agent_started
    return _present(args, path, done, (stream, progress, palette), session.redactor, elapsed)


def _present(
    args: argparse.Namespace,
    path: Path,
    done: FinishedRun,
    terminal: tuple[TextStream, TerminalProgress | None, Palette],
    redactor: Redactor,
    elapsed: float,
) -> int:
    """The run's outputs and closing lines; its exit status."""
    stream, progress, palette = terminal
    outcome = done.outcome
    report = outcome.report
    if progress is not None:
        progress.finish(report)
    comparison, baseline_error = baseline_comparison(args.baseline, path, report)
    status = write_outputs(args, outcome, redactor, stream, comparison)
    if done.stored is not None and not args.quiet:
        # The agent's absolute path: the hint works pasted in any folder.
        stream.write(f"run saved as {done.stored.id} (list: holodeck-lsp runs {pasteable(path)})\n")
    fail_fast_note = (
        f"stopped after the first failure, {outcome.stopped_after} (--fail-fast)"
        if outcome.stopped_after is not None
        else outcome.stop_reason
    )
    lines = closing_lines(
        report,
        elapsed,
        unreachable=outcome.unreachable,
        stopped_early=fail_fast_note,
        palette=palette,
    )
    if done.unfinished and done.stored is not None and done.stopped is not None:
        # Before the summary line, which stays the last one.
        lines.insert(-1, unfinished_line(report.run_id or "", done))
    stream.write("\n".join(lines) + "\n")
    stream.flush()
    if outcome.unreachable is not None:
        return EXIT_CANNOT_RUN
    if status != EXIT_OK:
        return status
    if baseline_error is not None:
        return fail(EXIT_TEST_FAILED, baseline_error)
    if comparison is not None:
        # The CI gate: with a baseline the status is the comparison's (1 only for a turn that
        # regressed), so failures the baseline had too do not fail the run.
        from holodeck_lsp.commands.run.baseline import print_comparison

        return print_comparison(comparison, out=stream, palette=palette)
    return run_status(report.summary, stopped_early=outcome.stop_reason is not None)


def _display(
    args: argparse.Namespace, started: StartedRun, stream: TextStream, palette: Palette
) -> TerminalProgress:
    """A line per case for a small run, an aggregate bar for a large one (progress_bar.py)."""
    # Every case runs once per model per repeat: the totals count those sessions (those a
    # resumed run has already aside).
    prepared = started.prepared
    left = [item.case for item in prepared.work.left(started.journal.finished)]
    # A simulated case at its most turns, tightened as it ends (runner/turn_total.py).
    turns = sum(case.most_turns for case in left)
    parallel = resolve_parallelism(prepared.parallel, prepared.request.agent, os.environ)
    return choose_display(
        stream,
        palette,
        cases=len(left),
        turns=turns,
        parallel=parallel,
        mode=args.progress,
        verbose=args.verbose,
        simulated_cases=sum(case.simulated for case in left),
    )


def _print_warnings(path: Path, diagnostics: list[Any]) -> None:
    """The check's warnings, as `check` prints them, before the run: a lint that says an
    assertion can never pass explains the failure before it happens."""
    warnings = [d for d in diagnostics if d.severity is Severity.WARNING]
    if warnings:
        text = render(build_report([(path, warnings)]), "text")
        sys.stderr.write(text.rsplit("\n", 2)[0] + "\n")  # without the summary line
        count = len(warnings)
        noun = "warning" if count == 1 else "warnings"
        print(f"holodeck-lsp: {count} {noun} from the check; running anyway", file=sys.stderr)
        sys.stderr.flush()


def first_line(prepared: PreparedRun) -> str:
    """`running PATH: N cases, M turns — where the answers come from`."""
    agent, path, answers = prepared.request.agent, prepared.request.agent_path, prepared.answers
    planned = prepared.planned
    matrix = matrix_note(prepared.matrix, model_label(agent))
    recording = isinstance(answers, Live) and answers.record
    if isinstance(answers, Replay):
        source = f"replaying {answers.path}"
    elif matrix:
        source = matrix + (" (recording)" if recording else "")
    else:
        model = agent.model
        source = f"{model.provider.value} {model.name}" + (" (recording)" if recording else "")
    cases = f"{len(planned)} case{'s' if len(planned) != 1 else ''}"
    return f"running {path}: {cases}, {turns_phrase(planned)} — {source}"


async def _run(session: RunSession, progress: TerminalProgress | None, ctrl_c: CtrlC) -> RunOutcome:
    cancel = asyncio.Event()
    # The live totals line is redrawn once a second between events too (a 429 stall);
    # a log (no terminal) gets its plain lines on events only.
    live = isinstance(progress, AggregateProgress) and progress.live
    beat = progress.redraw if isinstance(progress, AggregateProgress) and live else None
    with ctrl_c.cancelling(asyncio.get_running_loop(), cancel):
        async with heartbeat(beat):
            return await session.run(progress, cancel)


def _configure_logs(verbose: bool) -> None:
    """Warnings and errors on stderr (the SDKs' only with --verbose), secrets masked."""
    logging.basicConfig(level=logging.WARNING, format="holodeck-lsp: %(levelname)s: %(message)s")
    console_backend_logs(show=verbose)
