"""Keeping the history bounded: the newest N runs of each agent file stay, older ones are
deleted — except tagged runs (a baseline is never pruned) and folders that cannot be read
(they are listed as unreadable for the user to look at; guessing their age could delete the
wrong thing).

A run folder that is a symbolic link (a run kept elsewhere and linked in) is pruned by
removing the link only: what it points to may lie outside `.holodeck/runs/` and is not the
history's to delete; `Pruned.links` names each such target, and `runs --prune` says it was
left in place (docs/running.md, "Pruning a run that is a link").

N is `--keep N`, else $HOLODECK_RUNS_KEEP, else 20: a week or two of runs at a few a day —
enough for `previous` and yesterday's runs, while a stored run of the sample's shape takes
about 24 kB per case (20 runs of a 100-case suite: ~50 MB). 0 keeps every run. (Not a key of
config.yaml: HoloDeck validates that file strictly and would refuse a key it does not know.)
"""

from __future__ import annotations

import contextlib
import os
import shutil
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
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


@dataclass(frozen=True, slots=True)
class Pruned:
    #: The runs removed, oldest first.
    removed: list[StoredRun] = field(default_factory=list)
    #: Of those, the ones that were symbolic links: the link's target, left in place.
    links: dict[str, Path] = field(default_factory=dict)


def prune(folder: Path, keep: int, agent_file: str | None = None) -> list[StoredRun]:
    """Delete all but the newest `keep` untagged, finished runs of each agent file (of `agent_file`
    only, when given) in `folder`; the deleted runs, oldest first. 0 deletes nothing."""
    return prune_runs(folder, keep, agent_file).removed


def prune_runs(folder: Path, keep: int, agent_file: str | None = None) -> Pruned:
    """`prune`, telling which removed runs were links (by run id, with their targets)."""
    _sweep_abandoned(folder)
    if keep <= 0:
        return Pruned()
    listing = scan(folder, agent_file)
    by_agent: dict[str, list[StoredRun]] = {}
    for run in listing.runs:
        # An unfinished run is kept until it is resumed (or deleted): it may be running now.
        if not run.tags and not run.unfinished:
            by_agent.setdefault(run.meta.agent_file, []).append(run)
    doomed = [run for runs in by_agent.values() for run in runs[:-keep]]
    pruned = Pruned()
    for run in sorted(doomed, key=lambda r: r.started):
        if run.folder.is_symlink():
            target = _unlink(run.folder)
            if target is not None:
                pruned.removed.append(run)
                pruned.links[run.meta.id] = target
        elif _delete(run.folder):
            pruned.removed.append(run)
    return pruned


def _unlink(link: Path) -> Path | None:
    """Remove the link `link`, never what it points to; its target, or None when the link
    stays."""
    try:
        target = Path(os.readlink(link))
        link.unlink()
    except OSError:
        return None
    return target if target.is_absolute() else link.parent / target


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
        if entry.name.startswith(_DELETING) and entry.is_symlink():
            # Left by a version that renamed a linked run to delete it: the link goes, its
            # target stays.
            with contextlib.suppress(OSError):
                entry.unlink()
            continue
        if not entry.name.startswith((PARTIAL_PREFIX, _DELETING)) or not entry.is_dir():
            continue
        try:
            old = now - entry.stat().st_mtime > _ABANDONED_AFTER_S
        except OSError:
            continue
        if old or entry.name.startswith(_DELETING):
            shutil.rmtree(entry, ignore_errors=True)
