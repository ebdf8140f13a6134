"""Where each run is stored, by id: `run --resume RUN` without a PATH, pasted from anywhere,
finds the agent file whose run it is (docs/running.md, "Resume").

A run's history sits beside its agent file (layout.py), so an id alone says nothing about
where to look. Each run, when its journal starts, leaves one small file named by its id in
`$XDG_CACHE_HOME/holodeck-lsp/run-ids/` (else `~/.cache/…`) holding the agent file's absolute
path. It is a cache: losing it only means naming the agent file (`run PATH --resume RUN`), so
every write is best effort and the oldest entries beyond `_KEPT` are dropped.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

from holodeck_lsp.checker.file_reading import read_file_text

#: Entries kept; ids sort by start time, so the oldest go first.
_KEPT = 2000


def index_folder() -> Path:
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    root = Path(base) if base else Path.home() / ".cache"
    return root / "holodeck-lsp" / "run-ids"


def remember(run_id: str, agent_path: Path) -> None:
    """Note that run `run_id` belongs to `agent_path`; never raises."""
    folder = index_folder()
    with contextlib.suppress(OSError):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / run_id).write_text(str(agent_path.resolve()) + "\n", "utf-8")
        entries = sorted(folder.iterdir())
        for old in entries[: max(0, len(entries) - _KEPT)]:
            old.unlink(missing_ok=True)


def agents_of(ref: str) -> list[Path]:
    """The agent files of the indexed runs whose id is `ref` or starts with it (an exact id
    first and alone); agent files no longer on disk are left out."""
    folder = index_folder()
    try:
        names = sorted(entry.name for entry in folder.iterdir())
    except OSError:
        return []
    matches = [ref] if ref in names else [name for name in names if ref and name.startswith(ref)]
    found: list[Path] = []
    for name in matches:
        try:
            agent = Path(read_file_text(folder / name).strip())
        except OSError:
            continue
        if agent.is_file() and agent not in found:
            found.append(agent)
    return found
