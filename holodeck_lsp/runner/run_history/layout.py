"""Where stored runs live and what their ids look like.

    <agent file's folder>/.holodeck/runs/<id>/{run.json, report.json, recording.json,
                                               journal.jsonl}
    <agent file's folder>/.holodeck/runs/tags.json

Ids are `YYYYMMDD-HHMMSS-xxxx`: the UTC start time, then four hex digits of the fraction of
the second (in 16 µs steps) — so ids sort by start time as plain strings even within one
second, stay short enough to type, and are unique: when the id is taken (two runs started
in the same 16 µs, or a clock set back) the digits count up to the next free one.
A folder whose name starts with `.` is a run still being written (or abandoned by a crash)
and is never listed.
"""

from __future__ import annotations

import re
import secrets
from datetime import UTC, datetime
from pathlib import Path

#: holodeck-lsp's state beside an agent file: the run history, the last run's failures.
FOLDER = ".holodeck"
RUNS = "runs"
RUN_FILE = "run.json"
REPORT_FILE = "report.json"
RECORDING_FILE = "recording.json"
TAGS_FILE = "tags.json"
#: A run's journal (runner/run_history/journal.py): written while it runs, kept after.
JOURNAL_FILE = "journal.jsonl"
#: Prefix of a run folder being written: renamed to its id once complete.
PARTIAL_PREFIX = ".writing-"

ID_PATTERN = re.compile(r"^\d{8}-\d{6}-[0-9a-f]{4}$")


def runs_folder(agent_path: Path) -> Path:
    """The runs of the agent file `agent_path` (or of every agent in the folder `agent_path`)
    are stored here. Nothing is created."""
    folder = agent_path if agent_path.is_dir() else agent_path.parent
    return folder / FOLDER / RUNS


def new_run_id(started: datetime, taken: set[str] | None = None) -> str:
    """A fresh id for a run started at `started`, not one of `taken`."""
    stamp = started.astimezone(UTC).strftime("%Y%m%d-%H%M%S")
    taken = taken or set()
    for fraction in range(started.microsecond // 16, 0x10000):
        candidate = f"{stamp}-{fraction:04x}"
        if candidate not in taken:
            return candidate
    while True:  # 65,536 runs in the rest of one second: order no longer matters, only unicity
        candidate = f"{stamp}-{secrets.token_hex(2)}"
        if candidate not in taken:
            return candidate


def is_run_id(name: str) -> bool:
    return bool(ID_PATTERN.match(name))


def state_folder(agent_dir: Path) -> Path:
    """`.holodeck/` in `agent_dir`, created with a `.gitignore` of `*` (it ignores itself, so
    nothing in it is ever committed). Raises OSError when it cannot be written."""
    folder = agent_dir / FOLDER
    folder.mkdir(exist_ok=True)
    ignore = folder / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# holodeck-lsp's own state: never committed\n*\n", "utf-8")
    return folder


def pasteable(path: Path) -> str:
    """`path` as a hint names it: absolute and shell-quoted, so the printed command works
    pasted in any folder (docs/running.md, "Resume")."""
    import shlex

    return shlex.quote(str(path.resolve()))
