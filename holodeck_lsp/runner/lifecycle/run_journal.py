"""The journal a run writes as its cases finish (runner/run_history/journal.py): started for a
new run (its header says what the run runs, enough to run the rest later), reopened for a
resumed one, none with `save` off; and, after the run, whether it is unfinished."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime

from holodeck_lsp.runner.execution.early_stop import StopReason
from holodeck_lsp.runner.execution.events import CaseKey
from holodeck_lsp.runner.lifecycle.preparing import PreparedRun
from holodeck_lsp.runner.models.model_matrix import model_label
from holodeck_lsp.runner.run_history.fingerprint import fingerprint
from holodeck_lsp.runner.run_history.journal import (
    Journal,
    JournalHeader,
    reopen_journal,
    start_journal,
)
from holodeck_lsp.runner.run_history.resume import ResumePlan
from holodeck_lsp.runner.run_request import Live, Replay, RunCannotStart
from holodeck_lsp.schema.results import TestResult


@dataclass(slots=True)
class RunJournal:
    """The journal a run writes (None when the run is not saved, or when .holodeck/ is
    read-only) and, when resumed, what it has already."""

    journal: Journal | None
    started: datetime
    finished: dict[CaseKey, TestResult] = field(default_factory=dict)
    resumed: ResumePlan | None = None

    @property
    def run_id(self) -> str | None:
        return self.journal.run_id if self.journal is not None else None

    @property
    def done(self) -> int:
        """Case sessions the run has finished: a resumed run's earlier ones and this one's."""
        recorded = self.journal.recorded if self.journal is not None else set()
        return len(self.finished.keys() | recorded)

    def close(self) -> None:
        if self.journal is not None:
            self.journal.close()

    def discard(self) -> None:
        """The run could not start: a new run's folder goes (a resumed run keeps its own)."""
        self.close()
        if self.journal is not None and self.resumed is None:
            shutil.rmtree(self.journal.folder, ignore_errors=True)

    def unfinished(self, stopped: StopReason | None, sessions: int) -> bool:
        """Stopped early with case sessions left (with a journal: some not journaled)."""
        if stopped is None:
            return False
        if self.journal is None:
            return True
        return self.done < sessions


def open_run_journal(
    prepared: PreparedRun, now: datetime, warn: Callable[[str], None]
) -> RunJournal:
    """Start the run's journal (or reopen the resumed run's). Raises RunCannotStart only
    when a resumed run's journal cannot be appended to; a new run without one only warns."""
    request, plan = prepared.request, prepared.resumed
    agent, path = request.agent, request.agent_path
    sessions = prepared.work.sessions
    if plan is not None:
        header = plan.header.model_copy(
            update={"fingerprint": fingerprint(agent, path), "sessions": sessions, "pid": _pid()}
        )
        try:
            journal = reopen_journal(plan.run.folder, header)
        except OSError as error:
            raise RunCannotStart(_journal_error(f"run {plan.run.id}", prepared, error)) from None
        started = datetime.fromisoformat(plan.header.started)
        return RunJournal(journal, started, dict(plan.finished), plan)
    if not request.save:
        return RunJournal(None, now)
    answers = prepared.answers
    replay_of = answers.path.resolve() if isinstance(answers, Replay) else None
    header = JournalHeader(
        run_id="",
        started=now.isoformat(),
        agent_file=path.name,
        agent_name=agent.name,
        fingerprint=fingerprint(agent, path),
        models=[ref.label for ref in prepared.matrix.models],
        agent_model=model_label(agent),
        repeat=prepared.matrix.repeat,
        mode="record" if isinstance(answers, Live) and answers.record else _mode(answers),
        replay_of=str(replay_of) if replay_of is not None else None,
        parallel=request.parallel,
        sessions=sessions,
    ).with_selection(prepared.selection)
    try:
        return RunJournal(start_journal(path, header), now)
    except OSError as error:
        warn(
            f"this run keeps no journal, so a crash would lose it: cannot write "
            f"{path.parent / '.holodeck'} ({error.strerror or error}); make it writable, "
            "or pass --no-save"
        )
        return RunJournal(None, now)


def _mode(answers: object) -> str:
    return "replay" if isinstance(answers, Replay) else "live"


def _journal_error(which: str, prepared: PreparedRun, error: OSError) -> str:
    folder = prepared.request.agent_path.parent / ".holodeck"
    return (
        f"cannot write the journal of {which} ({error.strerror or error}); make {folder} writable"
    )


def _pid() -> int:
    return os.getpid()
