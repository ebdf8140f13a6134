"""`run`'s `--resume`: which flags go with it, which agent file it resumes when no PATH is
given, and the lines it prints (resuming, unfinished). Finding the run, its journal and what
is left is the run lifecycle's (runner/lifecycle/, runner/run_history/resume.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from holodeck_lsp.commands.run.flag_values import LATEST_UNFINISHED
from holodeck_lsp.runner.execution.early_stop import StopReason
from holodeck_lsp.runner.lifecycle.finishing import FinishedRun
from holodeck_lsp.runner.lifecycle.preparing import PreparedRun
from holodeck_lsp.runner.run_history.unfinished import resume_command

#: Flags that choose what runs: a resumed run takes them from its journal.
_CHOSEN_BY_THE_RUN = (
    ("--case", "case"),
    ("-k", "keyword"),
    ("--turn", "turn"),
    ("--last-failed", "last_failed"),
    ("--model", "model"),
    ("--repeat", "repeat"),
    ("--record", "record"),
    ("--replay", "replay"),
    ("--rejudge", "rejudge"),
    ("--no-save", "no_save"),
    ("--watch", "watch"),
)


def agent_to_resume(args: argparse.Namespace) -> Path | int:
    """`run` without a PATH: with --resume, the agent file of the stored run (found from the
    current folder or the run index: runner/run_history/resume_target.py); else, or when it
    cannot be found, the exit status after saying why."""
    from holodeck_lsp.commands._common import fail
    from holodeck_lsp.exit_codes import EXIT_BAD_INPUT
    from holodeck_lsp.runner.run_history.resume_target import agent_for_resume
    from holodeck_lsp.runner.run_history.which_agent import AgentNotChosen

    if args.resume is None:
        return fail(
            EXIT_BAD_INPUT,
            "name what to run: `holodeck-lsp run PATH` (an agent file, or a folder of them); "
            "PATH may be left out only with --resume RUN",
        )
    ref = None if args.resume == LATEST_UNFINISHED else args.resume
    try:
        return agent_for_resume(ref, Path("."))
    except AgentNotChosen as error:
        return fail(EXIT_BAD_INPUT, str(error))


def resume_refusal(args: argparse.Namespace, paths: int) -> str | None:
    """Why these flags cannot go together, or None."""
    if args.resume is None:
        if args.force or args.retry_errored:
            used = "--force" if args.force else "--retry-errored"
            return f"{used} goes with --resume: `holodeck-lsp run PATH --resume {used}`"
        return None
    chosen = [flag for flag, name in _CHOSEN_BY_THE_RUN if getattr(args, name, None)]
    if chosen:
        return (
            f"--resume runs the rest of a stored run, with its own cases, models and repeats: "
            f"drop {', '.join(chosen)}"
        )
    if paths > 1:
        return "--resume finishes the run of one agent file: name it"
    return None


def unfinished_line(run_id: str, done: FinishedRun) -> str:
    """The closing line of a run that stopped early with a journal."""
    assert done.stopped is not None
    return (
        f"unfinished {done.done}/{done.sessions} ({why(done.stopped)}) — resume with "
        f"`{resume_command(run_id)}`"
    )


def why(stopped: StopReason) -> str:
    return {
        StopReason.INTERRUPTED: "interrupted",
        StopReason.FAIL_FAST: "stopped by --fail-fast",
        StopReason.BUDGET: "stopped by a budget",
        StopReason.CRASHED: "the process died",
    }[stopped]


def resuming_line(prepared: PreparedRun) -> str:
    plan = prepared.resumed
    assert plan is not None
    sessions = prepared.work.sessions
    left = sessions - len(plan.finished)
    extra = f", {plan.retried} errored run again" if plan.retried else ""
    forced = f" (--force: {', '.join(plan.changed)} changed)" if plan.changed else ""
    return f"resuming run {plan.run.id}: {left} of {sessions} case sessions left{extra}{forced}"
