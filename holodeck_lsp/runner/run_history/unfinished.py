"""Unfinished runs as the history sees them, reading only the journal's lines (no report
schema: `runs` and the completion scripts list runs on every Tab).

A run is unfinished when it stopped early (Ctrl-C, `--fail-fast`, a budget: its run.json says
`interrupted`) or when its process died before storing anything (a folder with a journal and
no run.json). The latter is also what a run still going looks like: the journal's header
names the process, so a live one is told apart from a dead one.
"""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from holodeck_lsp import __version__
from holodeck_lsp.checker.file_reading import read_file_bytes
from holodeck_lsp.checker.json_reading import loads_json
from holodeck_lsp.runner.run_history.layout import JOURNAL_FILE
from holodeck_lsp.runner.run_history.metadata import Counts, RunMetadata

#: run.json's `stopped` for a journal with no run.json whose process still runs.
RUNNING = "running"


def resume_command(run_id: str) -> str:
    return f"holodeck-lsp run --resume {run_id}"


def journal_progress(folder: Path) -> tuple[int, int]:
    """(case sessions journaled, case sessions the run has), from the journal in `folder`;
    (0, 0) when there is none. Counts distinct keys without parsing the results."""
    try:
        data = read_file_bytes(folder / JOURNAL_FILE)
    except OSError:
        return 0, 0
    keys: set[bytes] = set()
    total = 0
    for line in data.split(b"\n")[:-1]:  # after the last newline: a torn write, ignored
        if line.startswith(b'{"kind":"case"'):
            start = line.find(b'"key":')
            keys.add(line[start : line.find(b"]", start) + 1])
        elif line.startswith(b'{"kind":"header"'):
            with contextlib.suppress(ValueError, TypeError, AttributeError):
                total = int(loads_json(line).get("sessions", 0))
    return len(keys), total


def metadata_from_journal(folder: Path) -> RunMetadata | str:
    """What run.json would say of a run whose process never stored it, from its journal's
    header; or why it cannot be read."""
    try:
        data = read_file_bytes(folder / JOURNAL_FILE)
    except OSError as error:
        return f"{JOURNAL_FILE} cannot be read ({error.strerror})"
    header: object = None
    for line in data.split(b"\n")[:-1]:  # the last header: a resume's says who runs it now
        if line.startswith(b'{"kind":"header"'):
            try:
                header = loads_json(line)
            except ValueError:
                continue
    if not isinstance(header, dict):
        return f"{JOURNAL_FILE} has no readable header line"
    cases, turns = _journaled_counts(data, header)
    models = [str(model) for model in header.get("models") or []]
    if not models and header.get("agent_model"):
        models = [str(header["agent_model"])]
    try:
        return RunMetadata(
            id=str(header["run_id"]),
            started=str(header["started"]),
            ended=str(header["started"]),
            agent_file=str(header["agent_file"]),
            agent_name=str(header.get("agent_name", "")),
            models=models,
            repeats=int(header.get("repeat", 1)),
            mode=str(header.get("mode", "live")),
            interrupted=True,
            stopped=RUNNING if _alive(header.get("pid")) else "crashed",
            holodeck_lsp_version=__version__,
            cases=cases,
            turns=turns,
        )
    except (KeyError, ValueError, TypeError) as error:
        return f"{JOURNAL_FILE}'s header is incomplete ({error})"


def _journaled_counts(data: bytes, header: dict[str, object]) -> tuple[Counts, Counts]:
    """(cases, turns) of a run that never stored run.json, from its journal: the cases passed
    of the sessions it has in all (the header's), the turns passed of those journaled."""
    results: dict[str, dict[str, object]] = {}
    for line in data.split(b"\n")[:-1]:
        if line.startswith(b'{"kind":"case"'):
            with contextlib.suppress(ValueError, TypeError, KeyError):
                record = loads_json(line)
                results[json.dumps(record["key"])] = record["result"]
    passed = sum(1 for result in results.values() if result.get("passed") is True)
    turns = [turn for result in results.values() for turn in _turns(result)]
    sessions = header.get("sessions")
    total = sessions if isinstance(sessions, int) and sessions >= len(results) else len(results)
    return (
        Counts(passed=passed, total=total),
        Counts(passed=sum(1 for turn in turns if turn.get("passed") is True), total=len(turns)),
    )


def _turns(result: dict[str, object]) -> list[dict[str, object]]:
    turns = result.get("turns")
    if isinstance(turns, list):
        return [turn for turn in turns if isinstance(turn, dict)]
    return [result]  # a single-turn case is its own turn


def _alive(pid: object) -> bool:
    if not isinstance(pid, int) or pid <= 0 or pid == os.getpid():
        return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:  # it exists, as another user's
        return True
    return True
