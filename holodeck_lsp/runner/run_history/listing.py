"""Reading `.holodeck/runs/`: every run folder, oldest first; the ones that cannot be read
are reported apart with the reason (a corrupt or hand-edited folder never hides the others).

The listing reads each run's small `run.json` and checks that `report.json` is there; the
report itself is parsed only when a run is used (`StoredRun.load_report`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

from pydantic import ValidationError

from holodeck_lsp.checker.json_reading import read_json_file
from holodeck_lsp.runner.run_history.layout import JOURNAL_FILE, REPORT_FILE, RUN_FILE, is_run_id
from holodeck_lsp.runner.run_history.metadata import FORMAT_VERSION, RunMetadata
from holodeck_lsp.runner.run_history.stored import FIX, StoredRun
from holodeck_lsp.runner.run_history.tags import TagError, read_tags, tags_by_run
from holodeck_lsp.runner.run_history.unfinished import metadata_from_journal


@dataclass(frozen=True, slots=True)
class Unreadable:
    """A folder in `runs/` that is not a readable run."""

    folder: Path
    reason: str

    @property
    def name(self) -> str:
        return self.folder.name


@dataclass(frozen=True, slots=True)
class Listing:
    runs: list[StoredRun] = field(default_factory=list)
    unreadable: list[Unreadable] = field(default_factory=list)
    tags: dict[str, str] = field(default_factory=dict)
    #: tags.json could not be read (the runs are listed without tags).
    tag_problem: str | None = None


def scan(folder: Path, agent_file: str | None = None) -> Listing:
    """The runs in `folder` (a `.holodeck/runs/`), oldest first; with `agent_file` (a name
    relative to the agent folder, as run.json holds it) only that agent file's runs."""
    try:
        entries = sorted(p for p in folder.iterdir() if p.is_dir())
    except FileNotFoundError:
        return Listing()
    except OSError as error:
        return Listing(unreadable=[Unreadable(folder, f"cannot be listed ({error.strerror})")])
    tag_problem = None
    try:
        tags = read_tags(folder)
    except TagError as error:
        tags, tag_problem = {}, str(error)
    named = tags_by_run(tags)
    runs: list[StoredRun] = []
    unreadable: list[Unreadable] = []
    for entry in entries:
        if entry.name.startswith("."):  # being written, or left by a crash: never a run
            continue
        meta = read_metadata(entry)
        if isinstance(meta, str):
            unreadable.append(Unreadable(entry, meta))
        elif agent_file is None or meta.agent_file == agent_file:
            runs.append(StoredRun(entry, meta, named.get(meta.id, ())))
    runs.sort(key=lambda run: (_sort_time(run), run.id))
    return Listing(runs, unreadable, tags, tag_problem)


def list_runs(folder: Path, agent_file: str | None = None) -> list[StoredRun]:
    """The readable runs in `folder`, oldest first (see `scan` for the unreadable ones)."""
    return scan(folder, agent_file).runs


def read_metadata(entry: Path) -> RunMetadata | str:
    """The folder's run.json, or why it is not a readable run (ending with the fix)."""
    if not is_run_id(entry.name):
        return f"not a run folder (run ids look like 20261201-223015-3f2a); {FIX}"
    path = entry / RUN_FILE
    try:
        raw = read_json_file(path)
    except FileNotFoundError:
        if (entry / JOURNAL_FILE).is_file():  # its process died (or runs still): unfinished
            found = metadata_from_journal(entry)
            return found if not isinstance(found, str) else f"{found}; {FIX}"
        return f"{RUN_FILE} is missing; {FIX}"
    except (OSError, UnicodeDecodeError) as error:
        return f"{RUN_FILE} cannot be read ({error}); {FIX}"
    except json.JSONDecodeError as error:
        return f"{RUN_FILE} is not JSON (line {error.lineno}: {error.msg}); {FIX}"
    if not isinstance(raw, dict):
        return f"{RUN_FILE} is not a JSON object; {FIX}"
    version = raw.get("format_version")
    if version != FORMAT_VERSION:
        return (
            f"{RUN_FILE} has format version {version!r}, this holodeck-lsp reads version "
            f"{FORMAT_VERSION} (a newer holodeck-lsp wrote it? upgrade, or {FIX})"
        )
    try:
        meta = RunMetadata.model_validate(raw)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"]) or "(top level)"
        return f"{RUN_FILE}: {where}: {first['msg']}; {FIX}"
    if meta.id != entry.name:
        return f"{RUN_FILE} says it is run {meta.id}, but the folder is named otherwise; {FIX}"
    if not (entry / REPORT_FILE).is_file():
        return f"{REPORT_FILE} is missing; {FIX}"
    try:
        datetime.fromisoformat(meta.started)
    except ValueError:
        return f"{RUN_FILE}: started: not an ISO time ({meta.started!r}); {FIX}"
    return meta


def _sort_time(run: StoredRun) -> float:
    return run.started.timestamp()


__all__ = ["Listing", "Unreadable", "list_runs", "read_metadata", "scan"]
