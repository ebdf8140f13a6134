"""Starting a prepared run: its journal, then its session (the backend built: an SDK imported,
the agent's tools loaded). A session that cannot start leaves no new run folder behind."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import datetime

from holodeck_lsp.runner.lifecycle.preparing import PreparedRun
from holodeck_lsp.runner.lifecycle.run_journal import RunJournal, open_run_journal
from holodeck_lsp.runner.run_request import RunCannotStart, RunRequest
from holodeck_lsp.runner.run_session import RunSession

#: How a front end opens a session: `RunSession.open`, or the server's trusted opener
#: (server/trust.py decides whether the workspace's code may run).
SessionOpener = Callable[[RunRequest], RunSession]


@dataclass(slots=True)
class StartedRun:
    prepared: PreparedRun
    journal: RunJournal
    session: RunSession

    @property
    def started(self) -> datetime:
        """When the run first started (a resumed run: its first part)."""
        return self.journal.started


def session_request(prepared: PreparedRun, journal: RunJournal) -> RunRequest:
    """What the session is asked for: the prepared run, journaled into `journal`."""
    request = prepared.request
    return RunRequest(
        request.agent,
        request.agent_path,
        answers=prepared.answers,
        selection=prepared.selection,
        backend_overrides=request.backend_overrides,
        parallel=prepared.parallel,
        grader_timeout=request.grader_timeout,
        agent_text=request.agent_text,
        rejudge=request.rejudge,
        fail_fast=request.fail_fast,
        models=prepared.matrix.models,
        repeat=prepared.matrix.repeat,
        planned=prepared.planned,
        max_cost=request.max_cost,
        max_turns=request.max_turns,
        prices=prepared.prices,
        journal=journal.journal,
        finished=journal.finished,
        trace=request.trace,
    )


def start_run(
    prepared: PreparedRun,
    *,
    now: datetime,
    warn: Callable[[str], None],
    open_session: SessionOpener = RunSession.open,
) -> StartedRun:
    """Open the journal and the session. Raises RunCannotStart (the journal of a resumed run
    cannot be written, or the session cannot start: then a new run's folder is removed).
    Blocks for as long as the session takes to open (the server calls it in a thread)."""
    journal = open_run_journal(prepared, now, warn)
    try:
        session = open_session(session_request(prepared, journal))
    except BaseException:
        journal.discard()  # a run that never started leaves no folder behind
        raise
    return StartedRun(prepared, journal, session)


__all__ = ["RunCannotStart", "SessionOpener", "StartedRun", "session_request", "start_run"]
