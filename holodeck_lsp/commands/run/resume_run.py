"""`run`'s journal and `--resume`: what `run` does before a run (start the journal, or find
the run to resume and take its cases, models and repeats) and after it (say whether it is
unfinished and how to finish it). The checks themselves are runner/run_history/resume.py.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from holodeck_lsp.commands._common import warn
from holodeck_lsp.commands.run.flag_values import LATEST_UNFINISHED
from holodeck_lsp.runner.execution.early_stop import StopReason
from holodeck_lsp.runner.execution.events import CaseKey
from holodeck_lsp.runner.execution.work_plan import WorkPlan
from holodeck_lsp.runner.models.model_matrix import model_label
from holodeck_lsp.runner.models.run_models import RunModels
from holodeck_lsp.runner.run_history.fingerprint import fingerprint
from holodeck_lsp.runner.run_history.journal import (
    Journal,
    JournalHeader,
    reopen_journal,
    start_journal,
)
from holodeck_lsp.runner.run_history.resume import ResumePlan, plan_resume
from holodeck_lsp.runner.run_history.unfinished import resume_command
from holodeck_lsp.runner.selection import PlannedCase, Selection
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestResult

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


@dataclass(slots=True)
class RunJournal:
    """The journal a run writes (None with --no-save, or when .holodeck/ is read-only) and,
    when resumed, what it has already."""

    journal: Journal | None
    started: datetime
    finished: dict[CaseKey, TestResult] = field(default_factory=dict)
    resumed: ResumePlan | None = None

    @property
    def run_id(self) -> str | None:
        return self.journal.run_id if self.journal is not None else None

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()

    def discard(self) -> None:
        """The run could not start: a new run's folder goes (a resumed run keeps its own)."""
        self.close()
        if self.journal is not None and self.resumed is None:
            import shutil

            shutil.rmtree(self.journal.folder, ignore_errors=True)


def resume_plan(args: argparse.Namespace, agent: Agent, path: Path) -> ResumePlan:
    """Raises ResumeRefused."""
    ref = None if args.resume == LATEST_UNFINISHED else args.resume
    return plan_resume(agent, path, ref, force=args.force, retry_errored=args.retry_errored)


def open_journal(
    args: argparse.Namespace,
    agent: Agent,
    path: Path,
    selection: Selection,
    matrix: RunModels,
    planned: list[PlannedCase],
    plan: ResumePlan | None,
    now: datetime,
) -> RunJournal:
    """Start the run's journal (or reopen the resumed run's). Raises OSError only when a
    resumed run's journal cannot be appended to; a new run without one only warns."""
    sessions = work_plan(planned, matrix).sessions
    if plan is not None:
        header = plan.header.model_copy(
            update={"fingerprint": fingerprint(agent, path), "sessions": sessions, "pid": _pid()}
        )
        journal = reopen_journal(plan.run.folder, header)
        started = datetime.fromisoformat(plan.header.started)
        return RunJournal(journal, started, dict(plan.finished), plan)
    if args.no_save:
        return RunJournal(None, now)
    header = JournalHeader(
        run_id="",
        started=now.isoformat(),
        agent_file=path.name,
        agent_name=agent.name,
        fingerprint=fingerprint(agent, path),
        models=[ref.label for ref in matrix.models],
        agent_model=model_label(agent),
        repeat=matrix.repeat,
        mode="record" if args.record else "replay" if args.replay else "live",
        replay_of=str(args.replay.resolve()) if args.replay else None,
        parallel=args.parallel,
        sessions=sessions,
    ).with_selection(selection)
    try:
        return RunJournal(start_journal(path, header), now)
    except OSError as error:
        warn(
            f"this run keeps no journal, so a crash would lose it: cannot write "
            f"{path.parent / '.holodeck'} ({error.strerror or error}); make it writable, "
            "or pass --no-save"
        )
        return RunJournal(None, now)


def unfinished_line(run_id: str, journal: RunJournal, total: int, stopped: StopReason) -> str:
    """The closing line of a run that stopped early with a journal."""
    done = len(journal.finished.keys() | recorded(journal))
    return f"unfinished {done}/{total} ({why(stopped)}) — resume with `{resume_command(run_id)}`"


def journal_error(plan: ResumePlan | None, path: Path, error: OSError) -> str:
    which = f"run {plan.run.id}" if plan is not None else "the run"
    return (
        f"cannot write the journal of {which} ({error.strerror or error}); make "
        f"{path.parent / '.holodeck'} writable"
    )


def _pid() -> int:
    return os.getpid()


def is_unfinished(stopped: StopReason | None, journal: RunJournal, sessions: int) -> bool:
    """Stopped early with case sessions left (with a journal: some not journaled)."""
    if stopped is None:
        return False
    if journal.journal is None:
        return True
    return len(journal.finished.keys() | recorded(journal)) < sessions


def recorded(journal: RunJournal) -> set[CaseKey]:
    return journal.journal.recorded if journal.journal is not None else set()


def why(stopped: StopReason) -> str:
    return {
        StopReason.INTERRUPTED: "interrupted",
        StopReason.FAIL_FAST: "stopped by --fail-fast",
        StopReason.BUDGET: "stopped by a budget",
        StopReason.CRASHED: "the process died",
    }[stopped]


def resuming_line(plan: ResumePlan, planned: list[PlannedCase], matrix: RunModels) -> str:
    sessions = work_plan(planned, matrix).sessions
    left = sessions - len(plan.finished)
    extra = f", {plan.retried} errored run again" if plan.retried else ""
    forced = f" (--force: {', '.join(plan.changed)} changed)" if plan.changed else ""
    return f"resuming run {plan.run.id}: {left} of {sessions} case sessions left{extra}{forced}"


def work_plan(planned: list[PlannedCase], matrix: RunModels) -> WorkPlan:
    """The run's case sessions: the planned cases on every `--model`, every repeat."""
    return WorkPlan.of(planned, [ref.label for ref in matrix.models], matrix.repeat)


def sessions_left(
    planned: list[PlannedCase], matrix: RunModels, finished: Mapping[CaseKey, object]
) -> list[PlannedCase]:
    """The case sessions still to run (one per model per repeat)."""
    return [item.case for item in work_plan(planned, matrix).left(finished)]
