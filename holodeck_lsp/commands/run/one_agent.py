"""One agent file's run inside `holodeck-lsp run`: load it, run it through `run_session`,
store it, write its outputs and print its closing lines. A folder of agent files is one run
of several of these (commands/run/main.py adds the grand total, commands/run/folder_run.py).
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import sys
import time
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from holodeck_lsp.commands._common import fail, warn
from holodeck_lsp.commands.console.case_progress import TerminalProgress
from holodeck_lsp.commands.console.closing_lines import closing_lines
from holodeck_lsp.commands.console.redacted_stream import RedactedStream
from holodeck_lsp.commands.console.text_stream import TextStream
from holodeck_lsp.commands.console.totals_bar import AggregateProgress, choose_display
from holodeck_lsp.commands.run.baseline import baseline_comparison
from holodeck_lsp.commands.run.command_clock import CommandClock
from holodeck_lsp.commands.run.ctrl_c import CtrlC
from holodeck_lsp.commands.run.outputs import write_outputs
from holodeck_lsp.commands.run.resume_run import (
    is_unfinished,
    journal_error,
    open_journal,
    resume_plan,
    resuming_line,
    sessions_left,
    unfinished_line,
    work_plan,
)
from holodeck_lsp.commands.run.run_status import run_status
from holodeck_lsp.commands.run.startup_heap import freeze_startup_heap
from holodeck_lsp.config.diagnostics import Severity
from holodeck_lsp.config.formats import build_report, render
from holodeck_lsp.config.loader import load_agent_file
from holodeck_lsp.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RUN,
    EXIT_OK,
    EXIT_TEST_FAILED,
)
from holodeck_lsp.runner.backends.backend_logs import console_backend_logs
from holodeck_lsp.runner.execution.early_stop import StopReason
from holodeck_lsp.runner.execution.events import CaseKey
from holodeck_lsp.runner.execution.executor import resolve_parallelism
from holodeck_lsp.runner.execution.heartbeat import heartbeat
from holodeck_lsp.runner.models.model_matrix import model_label
from holodeck_lsp.runner.models.run_models import (
    RunModels,
    RunModelsError,
    matrix_note,
    resolve_run_models,
)
from holodeck_lsp.runner.project_limits import ProjectLimitsError, apply_project_limits
from holodeck_lsp.runner.run_history import after_run
from holodeck_lsp.runner.run_history import last_failed as last_run
from holodeck_lsp.runner.run_history.layout import pasteable
from holodeck_lsp.runner.run_history.resume import ResumePlan, ResumeRefused
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
from holodeck_lsp.schema.agent import Agent
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
    agent = loaded.agent
    if not agent.test_cases:
        return fail(EXIT_BAD_INPUT, f"{path} has no test cases to run")
    plan: ResumePlan | None = None
    if args.resume is not None:
        try:
            plan = resume_plan(args, agent, path)
        except ResumeRefused as error:
            return fail(EXIT_BAD_INPUT, str(error))
    # A resumed run runs what its journal says it runs: the same cases, models, repeats.
    selection = plan.header.selection if plan is not None else _selection(args, path)
    try:
        planned = plan_cases(agent, selection)
    except SelectionError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    replay = args.replay
    if plan is not None and plan.header.replay_of is not None:
        replay = Path(plan.header.replay_of)
    parallel = args.parallel
    if plan is not None and parallel is None:
        parallel = plan.header.parallel

    try:
        matrix = resolve_run_models(
            (plan.header.models or None) if plan is not None else args.model,
            plan.header.repeat if plan is not None else args.repeat,
            path.parent,
            replaying=replay is not None,
            recording=args.record is not None,
        )
    except RunModelsError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    try:
        prices = apply_project_limits(path, args.retry_budget, args.max_tool_rounds)
    except ProjectLimitsError as error:
        return fail(EXIT_BAD_INPUT, str(error))

    _configure_logs(args.verbose)
    started_at = datetime.now().astimezone()
    answers: Answers = Replay(replay) if replay else Live(record=bool(args.record))
    # Before the backend starts (an SDK import takes seconds): the run has visibly begun.
    if not args.quiet:
        note = matrix_note(matrix, model_label(agent))
        print(_first_line(agent, path, answers, planned, note), flush=True)
        if plan is not None:
            print(resuming_line(plan, planned, matrix), flush=True)
    try:
        journal = open_journal(args, agent, path, selection, matrix, planned, plan, started_at)
    except OSError as error:
        return fail(EXIT_CANNOT_RUN, journal_error(plan, path, error))
    started_at = journal.started
    request = RunRequest(
        agent,
        path,
        answers=answers,
        selection=selection,
        parallel=parallel,
        grader_timeout=args.grader_timeout,
        rejudge=args.rejudge,
        fail_fast=args.fail_fast,
        models=matrix.models,
        repeat=matrix.repeat,
        planned=tuple(planned),
        max_cost=args.max_cost,
        max_turns=args.max_turns,
        prices=prices,
        journal=journal.journal,
        finished=journal.finished,
    )
    try:
        # In the main thread, before the loop: a second Ctrl-C must interrupt a slow start.
        session = RunSession.open(request)
    except RunCannotStart as error:
        journal.discard()  # a run that never started leaves no folder behind
        return fail(EXIT_CANNOT_RUN, str(error))
    freeze_startup_heap()  # the SDKs are imported now: no full collections over them
    for note in session.notes:
        warn(note)
    redactor = session.redactor
    stream = RedactedStream(sys.stdout, redactor)
    progress = (
        None
        if args.quiet
        else _display(args, agent, planned, matrix, stream, palette, journal.finished, parallel)
    )
    try:
        outcome = ctrl_c.run_until_done(_run(session, progress, ctrl_c))
    except RunFailed as error:  # a bug, not the suite's fault: say so without a traceback
        journal.close()
        return fail(EXIT_CANNOT_RUN, f"the run failed: {error}")
    journal.close()
    stopped = outcome.stopped or (StopReason.INTERRUPTED if ctrl_c.pressed else None)
    sessions = work_plan(planned, matrix).sessions
    unfinished = is_unfinished(stopped, journal, sessions)
    if unfinished:  # stopped early: a partial run, and every output says so
        outcome = dataclasses.replace(
            outcome, report=outcome.report.model_copy(update={"interrupted": True})
        )
    saved = None
    if not args.no_save:  # see runner/run_history/after_run.py
        stored = after_run.store_after_run(
            agent_path=path,
            report=outcome.report,
            redactor=redactor,
            started=started_at,
            keep=args.keep,
            recording=outcome.recording,
            mode=session.mode,
            replay_of=args.replay,
            interrupted=unfinished,
            models=(model_label(session.agent),),
            run_id=journal.run_id,
            stopped=stopped.value if unfinished and stopped is not None else None,
            warn=warn,
        )
        if stored is not None:
            report_with_id = outcome.report.model_copy(update={"run_id": stored.id})
            outcome = dataclasses.replace(outcome, report=report_with_id)
            # The agent's absolute path: the hint works pasted in any folder.
            where = pasteable(path)
            saved = f"run saved as {stored.id} (list: holodeck-lsp runs {where})\n"
    report = outcome.report
    if finished is not None:
        finished.append(AgentRun(path, report, redactor))

    if progress is not None:
        progress.finish(report)
    comparison, baseline_error = baseline_comparison(args.baseline, path, report)
    status = write_outputs(args, outcome, redactor, stream, comparison)
    if saved is not None and not args.quiet:
        stream.write(saved)
    last_run.save(path, report)
    fail_fast_note = (
        f"stopped after the first failure, {outcome.stopped_after} (--fail-fast)"
        if outcome.stopped_after is not None
        else outcome.stop_reason
    )
    # The command's wall time, start-up included; in a folder run, this agent file's (the
    # grand total has the command's).
    elapsed = clock.elapsed() if finished is None else time.perf_counter() - agent_started
    lines = closing_lines(
        report,
        elapsed,
        unreachable=outcome.unreachable,
        stopped_early=fail_fast_note,
        palette=palette,
    )
    if unfinished and saved is not None and stopped is not None:
        # Before the summary line, which stays the last one.
        lines.insert(-1, unfinished_line(report.run_id or "", journal, sessions, stopped))
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
    args: argparse.Namespace,
    agent: Agent,
    planned: list[Any],
    matrix: RunModels,
    stream: TextStream,
    palette: Palette,
    finished: dict[CaseKey, Any],
    parallel_flag: int | None,
) -> TerminalProgress:
    """A line per case for a small run, an aggregate bar for a large one (progress_bar.py)."""
    # Every case runs once per model per repeat: the totals count those sessions (those a
    # resumed run has already aside).
    left = sessions_left(planned, matrix, finished)
    turns = sum(case.sent_turns if case.graded_turn is None else 1 for case in left)
    parallel = resolve_parallelism(parallel_flag, agent, os.environ)
    return choose_display(
        stream,
        palette,
        cases=len(left),
        turns=turns,
        parallel=parallel,
        mode=args.progress,
        verbose=args.verbose,
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


def _selection(args: argparse.Namespace, path: Path) -> Selection:
    cases: list[str] = list(args.case or [])
    if args.last_failed:
        last = last_run.load(path)
        if last is None:
            print("holodeck-lsp: no earlier run recorded: running every case", file=sys.stderr)
        elif not last.failed:
            print("holodeck-lsp: no case failed last time: running every case", file=sys.stderr)
        else:
            cases = list(last.failed)
            print(
                f"holodeck-lsp: running the {len(cases)} case(s) that failed last time",
                file=sys.stderr,
            )
    first = cases[0] if len(cases) == 1 else None
    return Selection(
        case=first,
        turn=args.turn,
        cases=tuple(cases) if first is None else (),
        keyword=args.keyword,
    )


def _first_line(
    agent: Agent, path: Path, answers: Answers, planned: list[Any], matrix: str = ""
) -> str:
    turns = sum(case.sent_turns if case.graded_turn is None else 1 for case in planned)
    if isinstance(answers, Replay):
        source = f"replaying {answers.path}"
    elif matrix:
        source = matrix + (" (recording)" if isinstance(answers, Live) and answers.record else "")
    else:
        model = agent.model
        recording = isinstance(answers, Live) and answers.record
        source = f"{model.provider.value} {model.name}" + (" (recording)" if recording else "")
    cases = f"{len(planned)} case{'s' if len(planned) != 1 else ''}"
    return f"running {path}: {cases}, {turns} turn{'s' if turns != 1 else ''} — {source}"


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
