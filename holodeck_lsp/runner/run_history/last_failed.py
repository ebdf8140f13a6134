"""`run --last-failed`: which cases failed in the last run of an agent, kept on disk.

Written after every `holodeck-lsp run` to `.holodeck/last-run.<agent file>.json` beside the
agent file (one per agent: several `*.agent.yaml` may share a folder),
with a `.gitignore` of `*` in that folder, so it is never committed. Only names and positions
are kept (no answers, no inputs), so nothing secret is written.
"""

from __future__ import annotations

import contextlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.checker.json_reading import read_json_file
from holodeck_lsp.runner.run_history.layout import FOLDER, state_folder

if TYPE_CHECKING:
    # Only a type here: `run --last-failed` and the run history's listing must not pay for
    # the report schema to read a list of names.
    from holodeck_lsp.schema.results import TestReport

_VERSION = 1


@dataclass(frozen=True, slots=True)
class LastRun:
    agent_file: str
    #: Failed cases as selectors: their names, or positions for unnamed ones.
    failed: tuple[str, ...]
    total: int


def path_for(agent_path: Path) -> Path:
    return agent_path.parent / FOLDER / f"last-run.{agent_path.name}.json"


def save(agent_path: Path, report: TestReport) -> Path | None:
    """Record which cases failed; None when the folder cannot be written (not an error)."""
    folder = agent_path.parent / FOLDER
    failed = [
        result.test_name if result.test_name else str(result.test_index)
        for result in report.results
        if not result.passed
    ]
    data = {
        "version": _VERSION,
        "agent_file": agent_path.name,
        "failed": failed,
        "total": report.summary.total_tests,
    }
    try:
        state_folder(folder.parent)
        target = path_for(agent_path)
        target.write_text(json.dumps(data, indent=2) + "\n", encoding="utf-8")
    except OSError:
        return None
    return target


def load(agent_path: Path) -> LastRun | None:
    """The last run of this agent file, if one was recorded and is readable."""
    with contextlib.suppress(OSError, ValueError):
        data = read_json_file(path_for(agent_path))
        if (
            isinstance(data, dict)
            and data.get("version") == _VERSION
            and data.get("agent_file") == agent_path.name
            and isinstance(data.get("failed"), list)
        ):
            failed = tuple(str(item) for item in data["failed"])
            return LastRun(agent_path.name, failed, int(data.get("total", 0)))
    return None
