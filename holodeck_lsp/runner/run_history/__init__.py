"""The run history: every `holodeck-lsp run` (unless `--no-save`) stored under
`<agent file's folder>/.holodeck/runs/<id>/` — `run.json` (metadata), `report.json` (the
masked TestReport), `recording.json` (the run as a cassette). See docs/running.md.

    runs_folder(agent_path) -> Path          where an agent's runs are
    list_runs(folder) -> list[StoredRun]     oldest first (scan() also gives the unreadable)
    resolve(ref, folder) -> StoredRun        id, unique id prefix, tag, latest, previous;
                                             raises RunNotFound
    StoredRun.load_report() -> TestReport    raises RunUnreadable

Modules: layout (paths, ids), metadata (run.json, git), stored (StoredRun), listing, resolve,
tags, retention, store (atomic writes), after_run (what `run` calls).
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from holodeck_lsp.runner.run_history.layout import new_run_id, runs_folder
from holodeck_lsp.runner.run_history.listing import Listing, Unreadable, list_runs, scan
from holodeck_lsp.runner.run_history.metadata import RunMetadata
from holodeck_lsp.runner.run_history.resolve import RunNotFound, resolve
from holodeck_lsp.runner.run_history.retention import DEFAULT_KEEP, keep_setting, prune
from holodeck_lsp.runner.run_history.stored import RunUnreadable, StoredRun
from holodeck_lsp.runner.run_history.tags import TagError

if TYPE_CHECKING:
    from holodeck_lsp.runner.run_history.store import RunToStore, recording_of, save_run

#: Imported from `store` when first used (PEP 562): importing any module of the package runs
#: this file first, and `store` pulls in the secrets redactor and the YAML loader — a third of
#: a second that listing runs (and the completion scripts' `__run-refs`, on every Tab) does
#: not need. The rest reads only run.json and tags.json.
_FROM_STORE = ("RunToStore", "recording_of", "save_run")


def __getattr__(name: str) -> Any:
    if name not in _FROM_STORE:  # a submodule (`from … import retention`) is imported as usual
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.store"), name)
    globals()[name] = value
    return value


__all__ = [
    "DEFAULT_KEEP",
    "Listing",
    "RunMetadata",
    "RunNotFound",
    "RunToStore",
    "RunUnreadable",
    "StoredRun",
    "TagError",
    "Unreadable",
    "keep_setting",
    "list_runs",
    "new_run_id",
    "prune",
    "recording_of",
    "resolve",
    "runs_folder",
    "save_run",
    "scan",
]
