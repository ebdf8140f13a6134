"""What one side of a comparison names: a JSON report file, or a run stored in the agent's run
history (`.holodeck/runs/`, holodeck_lsp/runner/run_history/) by id, id prefix, tag, `latest`
or `previous`. Each resolves to the report and a `RunRef` saying where it came from.

This is compare's thin adapter over the run-history API, so that the command does not depend
on more of it than `runs_folder`, `list_runs`, `resolve`, `RunNotFound` and
`StoredRun.load_report()`; the metadata it reads beyond those (id, agent hash, start, models)
is read with defaults, and a history that cannot be imported is a clear error, not a crash.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

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


def stored_runs(agent: Path) -> list[Any]:
    history = _history()
    return list(history.list_runs(history.runs_folder(agent)))


def stored_side(name: str, agent: Path) -> Side:
    history = _history()
    folder = history.runs_folder(agent)
    try:
        run = history.resolve(name, folder)
    except history.RunNotFound as missing:
        raise SideError(str(missing)) from None
    try:
        report: TestReport = run.load_report()
    except Exception as error:  # a corrupt or hand-edited run folder: say which, lose nothing
        raise SideError(
            f"stored run {name!r} in {folder} cannot be read ({error}); "
            "pass another run, or its report file"
        ) from None
    run_id = _first(run, "id", "run_id") or report.run_id
    ref = RunRef(
        label=name,
        run_id=str(run_id) if run_id is not None else None,
        agent_path=str(_first(run, "agent_path") or report.agent_config_path),
        agent_sha256=_first(run, "agent_sha256", "agent_hash"),
        started=_first(run, "started", "start") or report.timestamp or None,
        models=list(_first(run, "models") or _report_models(report)),
        interrupted=bool(_first(run, "interrupted") or report.interrupted),
    )
    return Side(report, ref)


def _history() -> Any:
    try:
        from holodeck_lsp.runner import run_history  # type: ignore[attr-defined,unused-ignore]
    except ImportError as error:
        raise SideError(
            f"stored runs are not available in this build ({error}); "
            "pass two report files written by `holodeck-lsp run --report-json`"
        ) from None
    return run_history


def _first(run: Any, *names: str) -> Any:
    """The first of `names` the stored run (or its metadata) has set."""
    for owner in (run, getattr(run, "meta", None), getattr(run, "metadata", None)):
        if owner is None:
            continue
        for name in names:
            value = owner.get(name) if isinstance(owner, dict) else getattr(owner, name, None)
            if value is not None and not callable(value):
                return value
    return None


def _report_models(report: TestReport) -> list[str]:
    return list(dict.fromkeys(r.model for r in report.results if r.model)) or list(report.models)
