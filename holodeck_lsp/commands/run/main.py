"""`holodeck-lsp run PATH …`: load the suite, run it through `run_session` (the same run path
as the editor's: backend or cassette, secrets masked), write reports. See docs/running.md.

Exit status: 0 every case passed; 1 some case failed (a timeout, backend error or stale
cassette entry inside a case fails that case, never the run); 2 configuration error (the
loader's diagnostics are printed as `check` prints them) or bad arguments; 3 the run cannot
proceed (no usable backend, its endpoint does not answer, every turn failed to reach it,
unreadable cassette, a report or cassette that cannot be written).

The check's warnings are printed (to stderr) before the run starts, and the first line of
output comes before the SDK is imported: a slow start is visibly a start.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import logging
import os
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from holodeck_lsp.argument_types import non_negative, positive_int, positive_seconds
from holodeck_lsp.commands._common import fail
from holodeck_lsp.commands.console.case_progress import TerminalProgress
from holodeck_lsp.commands.console.closing_lines import summary_lines
from holodeck_lsp.commands.console.text_stream import TextStream
from holodeck_lsp.commands.console.totals_bar import PROGRESS_CHOICES, choose_display
from holodeck_lsp.commands.run.ctrl_c import CtrlC
from holodeck_lsp.commands.run.long_run_flags import add_long_run_flags, configure_limits
from holodeck_lsp.commands.run.run_status import run_status
from holodeck_lsp.commands.run.startup_heap import freeze_startup_heap
from holodeck_lsp.config.diagnostics import Severity
from holodeck_lsp.config.discovery import PathsNotFoundError, find_agent_files
from holodeck_lsp.config.formats import build_report, render
from holodeck_lsp.config.loader import load_agent_file
from holodeck_lsp.engine.reports import html, json_report, junit, markdown
from holodeck_lsp.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RUN,
    EXIT_OK,
    EXIT_TEST_FAILED,
    RUN_EXIT_CODES,
    epilog,
)
from holodeck_lsp.runner.backends.providers import provider_names
from holodeck_lsp.runner.execution.executor import resolve_parallelism
from holodeck_lsp.runner.models.model_matrix import model_label
from holodeck_lsp.runner.models.run_models import (
    RunModels,
    RunModelsError,
    matrix_note,
    resolve_run_models,
)
from holodeck_lsp.runner.run_history import after_run, retention
from holodeck_lsp.runner.run_history import last_failed as last_run
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
from holodeck_lsp.schema.comparison import Comparison
from holodeck_lsp.schema.results import TestReport
from holodeck_lsp.terminal import COLOR_CHOICES, Palette, wants_color


def main(argv: list[str]) -> int:
    # Ctrl-C is ours from the start, not only while cases run: creating the backend (importing
    # an SDK, loading tools) takes seconds, and a Ctrl-C then must not lose the report either.
    with CtrlC() as ctrl_c:
        return _main(argv, ctrl_c)


def _main(argv: list[str], ctrl_c: CtrlC) -> int:
    parser = _parser()
    try:
        # Intermixed: options may come before or after the path.
        args = parser.parse_intermixed_args(argv)
    except SystemExit as exit_:  # --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    if args.record and args.replay:
        return fail(EXIT_BAD_INPUT, "--record and --replay cannot be used together")
    if args.rejudge and not args.replay:
        return fail(EXIT_BAD_INPUT, "--rejudge re-judges a replay: use it with --replay FILE")
    if args.last_failed and (args.case or args.keyword):
        return fail(EXIT_BAD_INPUT, "--last-failed chooses the cases itself: drop --case / -k")
    try:
        args.keep = retention.keep_setting(args.keep)
    except retention.KeepSettingError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    paths = _agent_paths(args.paths)
    if paths is None:
        return EXIT_BAD_INPUT
    if len(paths) > 1:
        # Each agent has its own cases, cassette and reports: one file of each cannot hold them.
        single = [name for name, value in _PER_AGENT_OPTIONS if getattr(args, value) is not None]
        if single:
            return fail(
                EXIT_BAD_INPUT,
                f"{len(paths)} agent files found; {', '.join(single)} only work with one agent "
                "file: name it",
            )
    if args.watch:
        from holodeck_lsp.commands.console.file_watch import watch

        return watch(args.paths, lambda: _run_all(args, paths, ctrl_c), stop=lambda: ctrl_c.pressed)
    return _run_all(args, paths, ctrl_c)


#: Options that name one agent's cases or files: refused when several agents run.
_PER_AGENT_OPTIONS = (
    ("--case", "case"),
    ("--turn", "turn"),
    ("--record", "record"),
    ("--replay", "replay"),
    ("--report-json", "report_json"),
    ("--report-md", "report_md"),
    ("--report-html", "report_html"),
    ("--junit", "junit"),
)


def _run_all(args: argparse.Namespace, paths: list[Path], ctrl_c: CtrlC) -> int:
    """Each agent in turn; the worst status wins (3 over 2 over 1 over 0)."""
    worst = EXIT_OK
    for number, path in enumerate(paths):
        if ctrl_c.pressed:
            break
        if number:
            print(flush=True)
        worst = max(worst, _run_once(args, path, ctrl_c))
        if args.fail_fast and worst != EXIT_OK:
            break
    return worst


def _run_once(args: argparse.Namespace, path: Path, ctrl_c: CtrlC) -> int:
    palette = Palette(wants_color(args.color, sys.stdout))
    loaded = load_agent_file(path)
    if loaded.errors or loaded.agent is None:
        sys.stderr.write(render(build_report([(path, loaded.diagnostics)]), "text"))
        return EXIT_BAD_INPUT
    _print_warnings(path, loaded.diagnostics)
    agent = loaded.agent
    if not agent.test_cases:
        return fail(EXIT_BAD_INPUT, f"{path} has no test cases to run")
    selection = _selection(args, path)
    try:
        planned = plan_cases(agent, selection)
    except SelectionError as error:
        return fail(EXIT_BAD_INPUT, str(error))

    try:
        matrix = resolve_run_models(
            args.model,
            args.repeat,
            path.parent,
            replaying=args.replay is not None,
            recording=args.record is not None,
        )
    except RunModelsError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    limits_error = configure_limits(args, path)
    if limits_error is not None:
        return fail(EXIT_BAD_INPUT, limits_error)

    _configure_logs()
    started_at = datetime.now().astimezone()
    answers: Answers = Replay(args.replay) if args.replay else Live(record=bool(args.record))
    # Before the backend starts (an SDK import takes seconds): the run has visibly begun.
    if not args.quiet:
        note = matrix_note(matrix, model_label(agent))
        print(_first_line(agent, path, answers, planned, note), flush=True)
    request = RunRequest(
        agent,
        path,
        answers=answers,
        selection=selection,
        parallel=args.parallel,
        grader_timeout=args.grader_timeout,
        rejudge=args.rejudge,
        fail_fast=args.fail_fast,
        models=matrix.models,
        repeat=matrix.repeat,
    )
    try:
        # In the main thread, before the loop: a second Ctrl-C must interrupt a slow start.
        session = RunSession.open(request)
    except RunCannotStart as error:
        return fail(EXIT_CANNOT_RUN, str(error))
    freeze_startup_heap()  # the SDKs are imported now: no full collections over them
    redactor = session.redactor
    stream = _RedactedStream(sys.stdout, redactor)
    progress = None if args.quiet else _display(args, agent, planned, matrix, stream, palette)
    started = time.perf_counter()
    try:
        outcome = asyncio.run(_run(session, progress, ctrl_c))
    except RunFailed as error:  # a bug, not the suite's fault: say so without a traceback
        return fail(EXIT_CANNOT_RUN, f"the run failed: {error}")
    elapsed = time.perf_counter() - started
    if ctrl_c.pressed:  # stopped by the user: a partial run, and every output says so
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
            interrupted=ctrl_c.pressed,
            models=(f"{session.agent.model.provider.value}:{session.agent.model.name}",),
        )
        if stored is not None:
            report_with_id = outcome.report.model_copy(update={"run_id": stored.id})
            outcome = dataclasses.replace(outcome, report=report_with_id)
            saved = f"run saved as {stored.id} (list: holodeck-lsp runs {path})\n"
    report = outcome.report

    if progress is not None:
        progress.finish(report)
    comparison, baseline_error = _baseline_comparison(args, path, report)
    status = _write_outputs(args, outcome, redactor, stream, comparison)
    if saved is not None and not args.quiet:
        stream.write(saved)
    last_run.save(path, report)
    stopped = (
        f"stopped after the first failure, {outcome.stopped_after} (--fail-fast)"
        if outcome.stopped_after is not None
        else None
    )
    lines = summary_lines(
        report, elapsed, unreachable=outcome.unreachable, stopped_early=stopped, palette=palette
    )
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
    return run_status(report.summary)


def _display(
    args: argparse.Namespace,
    agent: Agent,
    planned: list[Any],
    matrix: RunModels,
    stream: TextStream,
    palette: Palette,
) -> TerminalProgress:
    """A line per case for a small run, an aggregate bar for a large one (progress_bar.py)."""
    # Every case runs once per model per repeat: the totals count those sessions.
    sessions = max(1, len(matrix.models)) * matrix.repeat
    turns = sessions * sum(case.sent_turns if case.graded_turn is None else 1 for case in planned)
    parallel = resolve_parallelism(args.parallel, agent, os.environ)
    return choose_display(
        stream,
        palette,
        cases=sessions * len(planned),
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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp run",
        description="Run an agent's test cases and grade them (see docs/running.md).",
        epilog=epilog(RUN_EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="+",
        type=Path,
        metavar="PATH",
        help="agent files, or folders: every agent.yaml / *.agent.yaml below them, run in turn",
    )
    parser.add_argument(
        "--case",
        action="append",
        metavar="NAME|INDEX|GLOB",
        help="run this case: its name, its 0-based position, or a glob over names ('rev*'); "
        "repeat for more",
    )
    parser.add_argument(
        "-k",
        dest="keyword",
        metavar="EXPR",
        help="run the cases whose name matches EXPR: words with and / or / not, as pytest -k",
    )
    parser.add_argument(
        "--turn",
        type=non_negative,
        metavar="N",
        help="with one --case: grade only turn N (0-based); turns 0..N-1 are sent as context",
    )
    parser.add_argument(
        "-x",
        "--fail-fast",
        action="store_true",
        help="stop at the first failing case (cases not finished are reported as cancelled)",
    )
    parser.add_argument(
        "--last-failed",
        action="store_true",
        help="run only the cases that failed in the last run (kept in .holodeck/ beside the "
        "agent file)",
    )
    parser.add_argument(
        "--watch", action="store_true", help="run again each time a file of the suite is saved"
    )
    parser.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="colour the output (default: auto — on a terminal, unless NO_COLOR is set)",
    )
    parser.add_argument(
        "--parallel",
        type=positive_int,
        metavar="N",
        help="cases run at once (default: execution.parallel_test_cases, else "
        "$HOLODECK_PARALLEL_TEST_CASES, else 1)",
    )
    parser.add_argument(
        "--model",
        action="append",
        metavar="PROVIDER:NAME",
        help=f"run the suite with this model instead of the agent's ({provider_names()}); "
        "repeat for a matrix, one column per model (default: models: in "
        "holodeck-lsp.yaml, else the agent's model)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="run every case N times, in N independent sessions (per model): pass rates, "
        "flaky turns, pass@1",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="with several models or repeats: one row per turn in the summary table",
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
    parser.add_argument(
        "--no-save",
        action="store_true",
        help="do not store this run in the history (.holodeck/runs/ beside the agent file)",
    )
    parser.add_argument(
        "--keep",
        type=non_negative,
        metavar="N",
        help="runs of the agent kept in the history, tagged ones apart (default "
        "$HOLODECK_RUNS_KEEP, else 20; 0 keeps all)",
    )
    parser.add_argument(
        "--baseline",
        metavar="NAME",
        help="end with `compare` against this stored run (a tag, id, previous) or report file; "
        "the exit status is then compare's: 1 only when a turn regressed",
    )
    parser.add_argument("--report-json", type=Path, metavar="FILE", help="write a JSON report")
    parser.add_argument("--report-md", type=Path, metavar="FILE", help="write a Markdown report")
    parser.add_argument(
        "--report-html", type=Path, metavar="FILE", help="write a self-contained HTML report"
    )
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write a JUnit XML report")
    parser.add_argument(
        "--quiet", action="store_true", help="print only the summary (totals and tokens)"
    )
    parser.add_argument(
        "--progress",
        choices=PROGRESS_CHOICES,
        default="auto",
        help="cases: a line per case (per turn without a terminal); totals: one aggregate "
        "line; auto (default): totals for a large run (over 50 cases, or 200 turns without a "
        "terminal)",
    )
    parser.add_argument(
        "--grader-timeout",
        type=positive_seconds,
        metavar="S",
        help="seconds a code grader may run (default $HOLODECK_GRADER_TIMEOUT or 30)",
    )
    add_long_run_flags(parser)
    return parser


def _agent_paths(paths: list[Path]) -> list[Path] | None:
    try:
        found = find_agent_files(paths)
    except PathsNotFoundError as missing:
        for path in missing.paths:
            fail(EXIT_BAD_INPUT, f"no such file or directory: {path}")
        return None
    if not found:
        where = ", ".join(map(str, paths))
        fail(EXIT_BAD_INPUT, f"no agent file found under {where} (agent.yaml or *.agent.yaml)")
        return None
    return found


async def _run(session: RunSession, progress: TerminalProgress | None, ctrl_c: CtrlC) -> RunOutcome:
    cancel = asyncio.Event()
    with ctrl_c.cancelling(asyncio.get_running_loop(), cancel):
        return await session.run(progress, cancel)


@dataclass(frozen=True, slots=True)
class _Output:
    path: Path
    render: Callable[[], str]
    what: str = "report"


def _baseline_comparison(
    args: argparse.Namespace, path: Path, report: TestReport
) -> tuple[Comparison | None, str | None]:
    """`--baseline NAME`: the comparison (for the HTML page and the end of the run), or why
    the baseline cannot be read."""
    if args.baseline is None:
        return None, None
    from holodeck_lsp.commands._common import warn
    from holodeck_lsp.commands.run.baseline import THIS_RUN
    from holodeck_lsp.runner.run_history.comparison_sides import SideError, comparison_with

    try:
        comparison = comparison_with(args.baseline, report, path, head_label=THIS_RUN, warn=warn)
        return comparison, None
    except SideError as error:
        return None, str(error)


def _write_outputs(
    args: argparse.Namespace,
    outcome: RunOutcome,
    redactor: Redactor,
    stream: TextStream,
    comparison: Comparison | None = None,
) -> int:
    masked, recording = outcome.report, outcome.recording
    outputs: list[_Output] = []
    if args.report_json:
        outputs.append(_Output(args.report_json, lambda: json_report.render(masked)))
    if args.report_md:
        outputs.append(_Output(args.report_md, lambda: markdown.render(masked)))
    if args.report_html:
        outputs.append(_Output(args.report_html, lambda: html.render_html(masked, comparison)))
    if args.junit:
        outputs.append(_Output(args.junit, lambda: junit.render(masked)))
    if args.record and recording is not None:
        outputs.append(_Output(args.record, recording.render, "cassette"))
    status = EXIT_OK
    for output in outputs:
        try:
            output.path.parent.mkdir(parents=True, exist_ok=True)
            # The renderers already saw masked data; masking the text too catches a secret
            # split or re-encoded by a renderer in a way the data pass could not see.
            output.path.write_text(redactor.text(output.render()), encoding="utf-8")
            stream.write(f"{output.what} written to {output.path}\n")
        except OSError as error:
            status = fail(EXIT_CANNOT_RUN, f"cannot write {output.path}: {error.strerror or error}")
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
