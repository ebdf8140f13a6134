"""Keeping the history bounded: the newest N runs of each agent file stay, older ones are
deleted — except tagged runs (a baseline is never pruned) and folders that cannot be read
(they are listed as unreadable for the user to look at; guessing their age could delete the
wrong thing).

N is `--keep N`, else $HOLODECK_RUNS_KEEP, else 20: a week or two of runs at a few a day —
enough for `previous` and yesterday's runs, while a stored run of the sample's shape takes
about 24 kB per case (20 runs of a 100-case suite: ~50 MB). 0 keeps every run. (Not a key of
config.yaml: HoloDeck validates that file strictly and would refuse a key it does not know.)
"""

from __future__ import annotations

import os
import shutil
import time
from collections.abc import Mapping
from pathlib import Path

from holodeck_lsp.runner.run_history.layout import PARTIAL_PREFIX
from holodeck_lsp.runner.run_history.listing import scan
from holodeck_lsp.runner.run_history.stored import StoredRun

DEFAULT_KEEP = 20
KEEP_ENV = "HOLODECK_RUNS_KEEP"
#: A folder still being written after this long was left by a crash.
_ABANDONED_AFTER_S = 3600.0
_DELETING = ".deleting-"


class KeepSettingError(ValueError):
    """$HOLODECK_RUNS_KEEP is not a number of runs."""


def keep_setting(flag: int | None, env: Mapping[str, str] | None = None) -> int:
    """How many runs per agent file to keep: the flag, else the environment, else 20."""
    if flag is not None:
        return flag
    text = (os.environ if env is None else env).get(KEEP_ENV, "").strip()
    if not text:
        return DEFAULT_KEEP
    try:
        value = int(text)
    except ValueError:
        value = -1
    if value < 0:
        raise KeepSettingError(
            f"${KEEP_ENV} is {text!r}: set it to a number of runs to keep (0 keeps all)"
        )
    return value


def prune(folder: Path, keep: int, agent_file: str | None = None) -> list[StoredRun]:
    """Delete all but the newest `keep` untagged, finished runs of each agent file (of `agent_file`
    only, when given) in `folder`; the deleted runs, oldest first. 0 deletes nothing."""
    _sweep_abandoned(folder)
    if keep <= 0:
        return []
    listing = scan(folder, agent_file)
    by_agent: dict[str, list[StoredRun]] = {}
    for run in listing.runs:
        # An unfinished run is kept until it is resumed (or deleted): it may be running now.
        if not run.tags and not run.unfinished:
            by_agent.setdefault(run.meta.agent_file, []).append(run)
    doomed = [run for runs in by_agent.values() for run in runs[:-keep]]
    removed: list[StoredRun] = []
    for run in sorted(doomed, key=lambda r: r.started):
        if _delete(run.folder):
            removed.append(run)
    return removed


def _delete(path: Path) -> bool:
    # Renamed first: a crash half-way through the deletion leaves a hidden folder (swept
    # later), never a listed run missing half its files.
    hidden = path.with_name(f"{_DELETING}{path.name}")
    try:
        path.rename(hidden)
    except OSError:
        return False
    shutil.rmtree(hidden, ignore_errors=True)
    return True


def _sweep_abandoned(folder: Path) -> None:
    try:
        entries = list(folder.iterdir())
    except OSError:
        return
    now = time.time()
    for entry in entries:
        if not entry.name.startswith((PARTIAL_PREFIX, _DELETING)) or not entry.is_dir():
            continue
        try:
            old = now - entry.stat().st_mtime > _ABANDONED_AFTER_S
        except OSError:
            continue
        if old or entry.name.startswith(_DELETING):
            shutil.rmtree(entry, ignore_errors=True)
