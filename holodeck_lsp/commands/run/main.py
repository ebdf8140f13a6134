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
import sys
import time
from pathlib import Path

from holodeck_lsp.commands._common import agent_files, fail
from holodeck_lsp.commands.run.command_clock import CommandClock, command_clock
from holodeck_lsp.commands.run.ctrl_c import CtrlC
from holodeck_lsp.commands.run.folder_run import (
    agent_args,
    common_folder,
    grand_total,
    overall_status,
)
from holodeck_lsp.commands.run.long_run_flags import resume_value_first
from holodeck_lsp.commands.run.one_agent import AgentRun, run_agent
from holodeck_lsp.commands.run.options import PER_AGENT_OPTIONS, run_parser
from holodeck_lsp.commands.run.resume_run import (
    agent_to_resume,
    resume_refusal,
)
from holodeck_lsp.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_OK,
)
from holodeck_lsp.runner.run_history import retention
from holodeck_lsp.terminal import Palette, wants_color


def main(argv: list[str]) -> int:
    # Ctrl-C is ours from the start, not only while cases run: creating the backend (importing
    # an SDK, loading tools) takes seconds, and a Ctrl-C then must not lose the report either.
    with CtrlC() as ctrl_c:
        status = _main(argv, ctrl_c)
    ctrl_c.exit_without_waiting(status)
    return status


def _main(argv: list[str], ctrl_c: CtrlC) -> int:
    parser = run_parser()
    try:
        # Intermixed: options may come before or after the path.
        args = parser.parse_intermixed_args(resume_value_first(argv))
    except SystemExit as exit_:  # --help (0) or a usage error (2)
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    if args.record and args.replay:
        return fail(EXIT_BAD_INPUT, "--record and --replay cannot be used together")
    if args.replay_user is not None and args.replay:
        return fail(
            EXIT_BAD_INPUT,
            "--replay-user drives a live agent with recorded users; --replay replays both "
            "sides: use one of them",
        )
    if args.rejudge and not args.replay:
        return fail(EXIT_BAD_INPUT, "--rejudge re-judges a replay: use it with --replay FILE")
    if args.last_failed and (args.case or args.keyword):
        return fail(EXIT_BAD_INPUT, "--last-failed chooses the cases itself: drop --case / -k")
    try:
        args.keep = retention.keep_setting(args.keep)
    except retention.KeepSettingError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    if not args.paths:
        chosen = agent_to_resume(args)
        if isinstance(chosen, int):
            return chosen
        args.paths = [chosen]
    paths = agent_files(args.paths)
    if paths is None:
        return EXIT_BAD_INPUT
    refusal = resume_refusal(args, len(paths))
    if refusal is not None:
        return fail(EXIT_BAD_INPUT, refusal)
    if len(paths) > 1:
        # Each agent has its own cases and cassette: one case name or cassette file cannot
        # name them all (a --record / --replay folder holds one cassette per agent file).
        single = [name for name, value in PER_AGENT_OPTIONS if getattr(args, value) is not None]
        if args.replay is not None and not args.replay.is_dir():
            single.append("--replay FILE (name a folder of cassettes, as --record writes)")
        if single:
            return fail(
                EXIT_BAD_INPUT,
                f"{len(paths)} agent files found; {', '.join(single)} only work with one agent "
                "file: name it",
            )
    if args.watch:
        from holodeck_lsp.commands.console.file_watch import watch

        # Each run's wall time from its own start: the process has been watching since.
        return watch(
            args.paths,
            lambda: _run_all(args, paths, ctrl_c, CommandClock(time.perf_counter())),
            stop=lambda: ctrl_c.pressed,
        )
    return _run_all(args, paths, ctrl_c)


def _run_all(
    args: argparse.Namespace, paths: list[Path], ctrl_c: CtrlC, clock: CommandClock | None = None
) -> int:
    """One agent file: its run. Several (a folder): each in turn, then one grand total over
    all of them (commands/run/folder_run.py)."""
    clock = clock or command_clock()
    if len(paths) == 1:
        return run_agent(args, paths[0], ctrl_c, clock)
    root = common_folder(paths)
    statuses: list[int] = []
    finished: list[AgentRun] = []
    for number, path in enumerate(paths):
        if ctrl_c.pressed:
            break
        if number:
            print(flush=True)
        statuses.append(run_agent(agent_args(args, path, root), path, ctrl_c, clock, finished))
        if args.fail_fast and overall_status(statuses) != EXIT_OK:
            break
    palette = Palette(wants_color(args.color, sys.stdout))
    written = grand_total(args, finished, root, len(paths), clock.elapsed(), palette)
    return overall_status([*statuses, written])
