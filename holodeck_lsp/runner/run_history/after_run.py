"""What a finished run does with the history (`holodeck-lsp run` and the editor alike): store
it and prune old runs — or, when `.holodeck/` cannot be written (a read-only checkout), warn
once through the caller's `warn` and carry on: not being able to keep a history never fails
a run."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from holodeck_lsp.runner.cassette import Cassette
from holodeck_lsp.runner.run_history.layout import runs_folder
from holodeck_lsp.runner.run_history.metadata import git_state
from holodeck_lsp.runner.run_history.retention import prune
from holodeck_lsp.runner.run_history.store import RunToStore, save_run
from holodeck_lsp.runner.run_history.stored import StoredRun
from holodeck_lsp.runner.secrets import Redactor
from holodeck_lsp.schema.results import TestReport

#: Warned about once per process (several agents in one `run` share a read-only checkout).
_warned = False


def store_after_run(
    *,
    agent_path: Path,
    report: TestReport,
    redactor: Redactor,
    started: datetime,
    keep: int,
    recording: Cassette | None = None,
    mode: str = "live",
    replay_of: Path | None = None,
    interrupted: bool = False,
    models: tuple[str, ...] = (),
    run_id: str | None = None,
    stopped: str | None = None,
    warn: Callable[[str], None],
) -> StoredRun | None:
    """Store the run; None (after one warning) when it cannot be stored."""
    global _warned
    run = RunToStore(
        agent_path=agent_path,
        report=report,
        started=started,
        ended=datetime.now().astimezone(),
        recording=recording,
        mode=mode,
        replay_of=replay_of,
        interrupted=interrupted,
        git=git_state(agent_path.parent),
        models=models,
        run_id=run_id,
        stopped=stopped,
    )
    try:
        stored = save_run(run, redactor)
    except OSError as error:
        if not _warned:
            _warned = True
            where = runs_folder(agent_path)
            warn(
                redactor.text(
                    f"this run was not saved to the history: cannot write {where} "
                    f"({error.strerror or error}); make the folder writable, or pass --no-save"
                )
            )
        return None
    prune(stored.folder.parent, keep, agent_path.name)
    return stored
