"""Editor runs in the run history: a "Run all" is stored in `.holodeck/runs/` through the same
`store_after_run` as `holodeck-lsp run` (masked with the run's redactor, pruned to the same
retention), so `holodeck-lsp runs` / `compare` see it and it becomes the next edit's baseline.
A cancelled Run all is stored as interrupted, as the CLI stores a run stopped with Ctrl-C.

"Run case", "Run turn" and re-grades are not stored. A stored run is a run *of the suite*:
`compare` (previous against latest) would list every case such a partial run left out as
removed, and `interrupted` means "stopped", not "chosen" — there is no honest way to mark a
deliberate one-turn run in that history. Their results still count in the editor: they are
the "current" side of the regression marks (`baseline_sides`).

The setting `holodeck.saveRuns` (default true) turns storing off, as `--no-save` does.
"""

from __future__ import annotations

import asyncio
import logging
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.schema.llm import model_label

if TYPE_CHECKING:
    from holodeck_lsp.runner.run_history import StoredRun
    from holodeck_lsp.runner.run_session import RunSession
    from holodeck_lsp.schema.results import TestReport
    from holodeck_lsp.server.runs.run_document import RunDocument

log = logging.getLogger("holodeck_lsp.server.runs")


async def store_run_all(
    session: RunSession,
    document: RunDocument,
    report: TestReport,
    *,
    started: datetime,
    cancelled: bool,
    replay_of: Path | None,
) -> StoredRun | None:
    """Store a finished Run all in a thread (it writes files and asks git for the commit);
    None when it could not be stored (logged: a history is never worth failing a run)."""
    from holodeck_lsp.runner.run_history import DEFAULT_KEEP, keep_setting
    from holodeck_lsp.runner.run_history.after_run import store_after_run
    from holodeck_lsp.runner.run_history.retention import KeepSettingError

    try:
        keep = keep_setting(None)
    except KeepSettingError as error:
        log.warning("%s; keeping %d runs", error, DEFAULT_KEEP)
        keep = DEFAULT_KEEP
    model = session.agent.model
    warnings: list[str] = []
    try:
        stored = await asyncio.to_thread(
            lambda: store_after_run(
                agent_path=document.path,
                report=report,
                redactor=session.redactor,
                started=started,
                keep=keep,
                mode=session.mode,
                replay_of=replay_of,
                interrupted=cancelled,
                models=(model_label(model.provider, model.name),),
                warn=warnings.append,
            )
        )
    except Exception:  # a bug in storing must not turn a finished run into a failed one
        log.exception("storing the run of %s failed", document.path)
        return None
    for warning in warnings:
        log.warning("%s", warning)
    return stored
