"""After a run: close its journal, decide whether it is unfinished (stopped early with case
sessions left: its report says `interrupted`, `run --resume` runs the rest), store it in the
run history and write which cases failed for the next `--last-failed`."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from holodeck_lsp.runner.execution.early_stop import StopReason
from holodeck_lsp.runner.lifecycle.starting import StartedRun
from holodeck_lsp.runner.models.model_matrix import model_label
from holodeck_lsp.runner.run_history import last_failed
from holodeck_lsp.runner.run_history.after_run import store_after_run
from holodeck_lsp.runner.run_history.stored import StoredRun
from holodeck_lsp.runner.run_request import RunOutcome


@dataclass(frozen=True, slots=True)
class FinishedRun:
    #: The outcome as the front end presents it: its report says `interrupted` when the run
    #: is unfinished, and carries the stored run's id.
    outcome: RunOutcome
    #: Where the run was stored (None: not saved, or `.holodeck/` not writable).
    stored: StoredRun | None
    #: Why the run stopped early (None: it did not).
    stopped: StopReason | None
    #: Stopped early with case sessions left.
    unfinished: bool
    #: Case sessions finished (with a resumed run's earlier ones) of `sessions` in all.
    done: int
    sessions: int


def finish_run(
    started: StartedRun,
    outcome: RunOutcome,
    *,
    interrupted: bool = False,
    warn: Callable[[str], None],
) -> FinishedRun:
    """`interrupted`: the front end stopped the run (Ctrl-C) and the outcome may not say so.
    Writes files (the run folder, `.holodeck/last-run.*.json`): the server calls it in a
    thread. A history that cannot be written only warns."""
    journal, prepared, session = started.journal, started.prepared, started.session
    request = prepared.request
    journal.close()
    stopped = outcome.stopped or (StopReason.INTERRUPTED if interrupted else None)
    sessions = prepared.work.sessions
    unfinished = journal.unfinished(stopped, sessions)
    if unfinished:  # stopped early: a partial run, and every output says so
        report = outcome.report.model_copy(update={"interrupted": True})
        outcome = dataclasses.replace(outcome, report=report)
    stored = None
    if request.save:  # see runner/run_history/after_run.py
        stored = store_after_run(
            agent_path=request.agent_path,
            report=outcome.report,
            redactor=session.redactor,
            started=started.started,
            keep=request.keep,
            recording=outcome.recording,
            mode=session.mode,
            replay_of=request.replay,
            interrupted=unfinished,
            models=(model_label(session.agent),),
            run_id=journal.run_id,
            stopped=stopped.value if unfinished and stopped is not None else None,
            warn=warn,
        )
        if stored is not None:
            report = outcome.report.model_copy(update={"run_id": stored.id})
            outcome = dataclasses.replace(outcome, report=report)
    if request.count_last_failed:
        last_failed.save(request.agent_path, outcome.report)
    return FinishedRun(outcome, stored, stopped, unfinished, journal.done, sessions)
