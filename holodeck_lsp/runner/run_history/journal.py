"""The journal of a run: `.holodeck/runs/<id>/journal.jsonl`, written while the run goes, so
a crash (`kill -9`, a power cut) loses no finished case.

One JSON object a line. The first line is a header saying what was run — enough to run the
rest later (`run --resume`): the agent file, its fingerprint, the selection, the models, the
repeats, where the answers came from. Then one line per finished case session, its result as
the report holds it (secrets masked). Each line is flushed and fsync'd before the next case
can be told about, so whatever the kernel kept survives the process.

A process killed in the middle of a write leaves a torn last line: it is ignored (that case
is simply run again), and cut off before anything is appended. A resumed run appends a new
header (the last one says what the run is now) and its own cases; a case journaled twice
(`--retry-errored`) counts as its last record.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from holodeck_lsp.checker.file_reading import read_file_bytes
from holodeck_lsp.checker.json_reading import loads_json
from holodeck_lsp.runner.execution.events import CaseKey
from holodeck_lsp.runner.run_history.layout import JOURNAL_FILE, RUNS, new_run_id, state_folder
from holodeck_lsp.runner.run_history.run_index import remember
from holodeck_lsp.runner.selection import Selection
from holodeck_lsp.runner.shards import parse_shard
from holodeck_lsp.schema.results import TestResult

JOURNAL_VERSION = 1
#: Attempts at a fresh run id when another run's folder took the one drawn.
_ATTEMPTS = 20


class JournalUnreadable(Exception):
    """The journal cannot be read; the message leads with the file and the cause."""


class JournalHeader(BaseModel):
    """What a run runs: written first, and again by every resume."""

    model_config = ConfigDict(extra="ignore")

    kind: Literal["header"] = "header"
    journal_version: Literal[1] = 1
    run_id: str
    started: str = Field(description="ISO 8601 with time zone: when the run first started.")
    agent_file: str = Field(description="Relative to the folder that holds `.holodeck/`.")
    agent_name: str = ""
    #: runner/run_history/fingerprint.py: {file: sha256}.
    fingerprint: dict[str, str] = Field(default_factory=dict)
    case: str | int | None = None
    turn: int | None = None
    cases: list[str] = Field(default_factory=list)
    keyword: str | None = None
    #: `--shard K/N` as given (runner/shards.py); None: every case.
    shard: str | None = None
    #: `--model` values as given (empty: the agent's own model).
    models: list[str] = Field(default_factory=list)
    #: The agent's own model (`provider:name`): what `runs` shows for a run killed before it
    #: stored run.json (older journals leave it out).
    agent_model: str = ""
    repeat: int = Field(default=1, ge=1)
    mode: str = "live"
    #: The cassette a replay answers from (absolute).
    replay_of: str | None = None
    parallel: int | None = None
    #: Case sessions the run has in all (cases × models × repeats).
    sessions: int = Field(default=0, ge=0)
    #: The process writing the journal: `runs` tells a run still going from a dead one.
    pid: int = Field(default_factory=os.getpid)

    @property
    def selection(self) -> Selection:
        return Selection(
            case=self.case,
            turn=self.turn,
            cases=tuple(self.cases),
            keyword=self.keyword,
            shard=parse_shard(self.shard) if self.shard else None,
        )

    def with_selection(self, selection: Selection) -> JournalHeader:
        return self.model_copy(
            update={
                "case": selection.case,
                "turn": selection.turn,
                "cases": list(selection.cases),
                "keyword": selection.keyword,
                "shard": str(selection.shard) if selection.shard is not None else None,
            }
        )


@dataclass(slots=True)
class JournalContents:
    header: JournalHeader
    #: The last record of each finished case session, by key.
    finished: dict[CaseKey, TestResult] = field(default_factory=dict)
    #: The last line was torn (the process died while writing it) and was ignored.
    torn: bool = False


class Journal:
    """An open journal, appended to as cases finish (see `record`)."""

    def __init__(self, folder: Path, header: JournalHeader) -> None:
        self.folder = folder
        self.header = header
        self.path = folder / JOURNAL_FILE
        #: The case sessions this process journaled.
        self.recorded: set[CaseKey] = set()
        self._file = self.path.open("ab")
        self._append(header.model_dump(mode="json"))

    @property
    def run_id(self) -> str:
        return self.header.run_id

    def record(self, key: CaseKey, result: TestResult) -> None:
        """Journal one finished case session (already masked). Blocks for one fsync — a few
        milliseconds per case, which is what surviving `kill -9` costs."""
        index, model, repeat = key
        self.recorded.add(key)
        self._append(
            {
                "kind": "case",
                "key": [index, model, repeat],
                "result": result.model_dump(mode="json"),
            }
        )

    def close(self) -> None:
        if not self._file.closed:
            self._file.close()

    def _append(self, record: Mapping[str, Any]) -> None:
        line = json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n"
        self._file.write(line.encode("utf-8"))
        self._file.flush()
        os.fsync(self._file.fileno())


def start_journal(agent_path: Path, header: JournalHeader) -> Journal:
    """A new run folder `.holodeck/runs/<new id>/` holding a journal that begins with
    `header` (its `run_id` is set here, from `header.started`). Raises OSError."""
    from datetime import datetime

    runs = state_folder(agent_path.parent) / RUNS
    runs.mkdir(exist_ok=True)
    started = datetime.fromisoformat(header.started)
    for _ in range(_ATTEMPTS):
        run_id = new_run_id(started, {entry.name for entry in runs.iterdir()})
        folder = runs / run_id
        try:
            folder.mkdir()  # exclusive: two runs never share a folder
        except FileExistsError:
            continue
        journal = Journal(folder, header.model_copy(update={"run_id": run_id}))
        remember(run_id, agent_path)  # `run --resume ID` then works from any folder
        return journal
    raise OSError(f"no free run id for {header.started}")


def reopen_journal(folder: Path, header: JournalHeader) -> Journal:
    """Append to the journal in `folder` (a resumed run): a torn last line is cut off first,
    so the next record starts on a line of its own. Raises OSError."""
    path = folder / JOURNAL_FILE
    data = read_file_bytes(path)
    end = data.rfind(b"\n") + 1
    if end != len(data):
        with path.open("r+b") as file:
            file.truncate(end)
    return Journal(folder, header)


def read_journal(path: Path) -> JournalContents:
    """The journal at `path`. Raises JournalUnreadable (missing, no header, a bad line that is
    not the last)."""
    fix = "delete the run's folder and run the suite again"
    try:
        data = read_file_bytes(path)
    except FileNotFoundError:
        raise JournalUnreadable(f"{path} is missing; {fix}") from None
    except OSError as error:
        raise JournalUnreadable(f"{path} cannot be read ({error.strerror}); {fix}") from None
    lines = data.split(b"\n")
    torn = lines[-1] != b""  # everything after the last newline: a write the process never finished
    complete = lines[:-1]
    contents: JournalContents | None = None
    for number, line in enumerate(complete, start=1):
        try:
            record = loads_json(line)
            if record.get("kind") == "header":
                header = JournalHeader.model_validate(record)
                if contents is None:
                    contents = JournalContents(header)
                else:
                    contents.header = header
                continue
            if contents is None:
                break
            index, model, repeat = record["key"]
            contents.finished[(int(index), model, repeat)] = TestResult.model_validate(
                record["result"]
            )
        except (ValueError, KeyError, TypeError, AttributeError, ValidationError) as error:
            cause = error.errors()[0]["msg"] if isinstance(error, ValidationError) else error
            raise JournalUnreadable(
                f"{path}: line {number} is not a journal record ({cause}); {fix}"
            ) from None
    if contents is None:
        raise JournalUnreadable(f"{path} has no header line; {fix}")
    contents.torn = torn
    return contents
