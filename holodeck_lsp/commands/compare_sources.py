"""What one side of a comparison names: a JSON report file, or a run stored in the agent's run
history (`.holodeck/runs/`, holodeck_lsp/runner/run_history/) by id, id prefix, tag, `latest`
or `previous`. Each resolves to the report and a `RunRef` saying where it came from.

Compare's only contact with the run history (runner/run_history/): `runs_folder`,
`list_runs`, `resolve` and `StoredRun` (its metadata and `load_report()`).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.runner.run_history import (
    RunNotFound,
    RunUnreadable,
    StoredRun,
    list_runs,
    resolve,
    runs_folder,
)
from holodeck_lsp.schema.comparison import RunRef
from holodeck_lsp.schema.results import TestReport


class SideError(Exception):
    """A side cannot be read; the message leads with the cause and says what to do."""


@dataclass(frozen=True, slots=True)
class Side:
    report: TestReport
    ref: RunRef


def looks_like_file(text: str) -> bool:
    """A report file rather than a stored run: an existing file, or a name ending in .json (a
    missing one is then reported as a missing file, not as an unknown run id)."""
    return text.endswith(".json") or Path(text).is_file()


def report_side(text: str) -> Side:
    # Imported here: report_command prints its own reason when a file is not a report.
    from holodeck_lsp.runner.report_command import read_report

    path = Path(text)
    if not path.is_file():
        raise SideError(f"no such report file: {path} (pass a file written by --report-json)")
    report = read_report(path)
    if report is None:  # read_report printed why
        raise SideError(f"{path} cannot be compared")
    ref = RunRef(
        label=text,
        report_path=str(path),
        run_id=report.run_id,
        agent_path=report.agent_config_path,
        started=report.timestamp or None,
        models=_report_models(report),
        interrupted=report.interrupted,
    )
    return Side(report, ref)


def stored_runs(agent: Path) -> list[StoredRun]:
    return list_runs(runs_folder(agent), agent.name)


def stored_side(name: str, agent: Path) -> Side:
    folder = runs_folder(agent)
    try:
        run = resolve(name, folder, agent.name)
        report = run.load_report()
    except (RunNotFound, RunUnreadable) as error:
        raise SideError(f"{error} (or pass a report file)") from None
    meta = run.meta
    ref = RunRef(
        label=name,
        run_id=run.id,
        report_path=str(run.report_path),
        # The agent as named here (both stored sides then read alike); the hash tells edits.
        agent_path=str(agent),
        agent_sha256=meta.agent_sha256,
        started=meta.started,
        models=list(meta.models) or _report_models(report),
        interrupted=meta.interrupted or report.interrupted,
    )
    return Side(report, ref)


def _report_models(report: TestReport) -> list[str]:
    return list(dict.fromkeys(r.model for r in report.results if r.model)) or list(report.models)
