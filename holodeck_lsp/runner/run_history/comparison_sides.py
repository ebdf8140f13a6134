"""What one side of a comparison names: a JSON report file, or a run stored in the agent's run
history (`.holodeck/runs/`, holodeck_lsp/runner/run_history/) by id, id prefix, tag, `latest`
or `previous`. Each resolves to its report file and a `RunRef` saying where it came from.

A side is read twice over only when it has to be: first decoded to just what comparing reads,
without validating the rest (the fast path, engine/comparison_decoding.py); if that
data is not shaped like a report, as a TestReport — whose reader says what is wrong.

Compare's only contact with the run history: `runs_folder`, `list_runs`, `resolve` and
`StoredRun` (its metadata, `report_path`, and `load_report()` for the history's own errors).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pydantic_core import from_json

from holodeck_lsp.checker.file_reading import read_file_bytes
from holodeck_lsp.checker.gc_pause import gc_paused
from holodeck_lsp.engine.run_comparison import compare_report_bytes, compare_reports
from holodeck_lsp.schema.comparison import Comparison, RunRef

if TYPE_CHECKING:
    # Imported where used: the run history pulls in the cassette and agent schemas, a third
    # of a second that comparing two report files does not need.
    from holodeck_lsp.runner.run_history import StoredRun
    from holodeck_lsp.schema.results import TestReport


class SideError(Exception):
    """A side cannot be read; the message leads with the cause and says what to do."""


@dataclass(frozen=True, slots=True)
class Side:
    ref: RunRef
    path: Path
    run: StoredRun | None = None

    def data(self) -> Any:
        """The report's parsed JSON (ValueError / OSError when it is not JSON)."""
        return from_json(self.raw())

    def raw(self) -> bytes:
        """The report file's bytes (OSError when it cannot be read)."""
        return read_file_bytes(self.path)

    def report(self, warn: Callable[[str], None] | None = None) -> TestReport:
        """The report, validated; SideError saying why when it is not one. `warn` hears
        about fields of an older or newer version that were dropped."""
        if self.run is not None:
            from holodeck_lsp.runner.run_history import RunUnreadable

            try:
                return self.run.load_report()
            except RunUnreadable as error:
                raise SideError(f"{error} (or pass a report file)") from None
        from holodeck_lsp.runner.run_history.report_files import ReportUnreadable, read_report_file

        try:
            return read_report_file(self.path, warn)
        except ReportUnreadable as error:
            raise SideError(str(error)) from None


def looks_like_file(text: str) -> bool:
    """A report file rather than a stored run: an existing file, or a name ending in .json (a
    missing one is then reported as a missing file, not as an unknown run id)."""
    return text.endswith(".json") or Path(text).is_file()


def report_side(text: str) -> Side:
    path = Path(text)
    if not path.is_file():
        if path.exists() and not path.is_dir():  # a pipe or a device: never opened
            raise SideError(f"{path} is not a regular file (pass a file written by --report-json)")
        raise SideError(f"no such report file: {path} (pass a file written by --report-json)")
    return Side(RunRef(label=text, report_path=str(path)), path)


def stored_runs(agent: Path) -> list[StoredRun]:
    from holodeck_lsp.runner.run_history import list_runs, runs_folder

    return list_runs(runs_folder(agent), agent.name)


def stored_side(name: str, agent: Path) -> Side:
    from holodeck_lsp.runner.run_history import RunNotFound, resolve, runs_folder

    folder = runs_folder(agent)
    try:
        run = resolve(name, folder, agent.name)
    except RunNotFound as error:
        raise SideError(f"{error} (or pass a report file)") from None
    return Side(stored_ref(name, run, agent), run.report_path, run)


def stored_ref(label: str, run: StoredRun, agent: Path) -> RunRef:
    """How a comparison names a stored run (the CLI's sides and the editor's alike)."""
    meta = run.meta
    return RunRef(
        label=label,
        run_id=run.id,
        report_path=str(run.report_path),
        # The agent as named here (both stored sides then read alike); the hash tells edits.
        agent_path=str(agent),
        agent_sha256=meta.agent_sha256,
        started=meta.started,
        models=list(meta.models),
        interrupted=meta.interrupted,
    )


def side_named(name: str, agent: Path | None) -> Side:
    """A report file, or (beside `agent`) a stored run."""
    if looks_like_file(name):
        return report_side(name)
    assert agent is not None
    return stored_side(name, agent)


def compared(
    base: Side, head: Side, threshold: float, warn: Callable[[str], None] | None = None
) -> Comparison:
    """The fast path over both files' JSON; the validating one when a file is not shaped
    like a report (its reader then says why, or reads it after all: an older report)."""
    # Two parsed reports are a million live objects: a collector pass would walk them all
    # again for nothing (it took over half the time), so it waits until the comparison ends.
    with gc_paused():
        return _compared(base, head, threshold, warn)


def _compared(
    base: Side, head: Side, threshold: float, warn: Callable[[str], None] | None
) -> Comparison:
    try:
        return compare_report_bytes(
            base.raw(), head.raw(), base_ref=base.ref, head_ref=head.ref,
            score_threshold=threshold,
        )  # fmt: skip
    except (OSError, ValueError):  # not JSON, ReportDataError, a failing turn's ValidationError
        return compare_reports(
            base.report(warn), head.report(warn), base_ref=base.ref, head_ref=head.ref,
            score_threshold=threshold,
        )  # fmt: skip


def comparison_with(
    baseline: str,
    report: TestReport,
    agent: Path,
    *,
    head_label: str,
    head_agent: str | None = None,
    threshold: float = 0.05,
    warn: Callable[[str], None] | None = None,
) -> Comparison:
    """`report` (not stored yet, or rendered again) against the named baseline: a stored run
    beside `agent` or a report file. SideError, naming `--baseline`, when it cannot be read."""
    return baseline_and_comparison(
        baseline, report, agent, head_label=head_label, head_agent=head_agent,
        threshold=threshold, warn=warn,
    )[1]  # fmt: skip


def baseline_and_comparison(
    baseline: str,
    report: TestReport,
    agent: Path,
    *,
    head_label: str,
    head_agent: str | None = None,
    threshold: float = 0.05,
    warn: Callable[[str], None] | None = None,
) -> tuple[TestReport, Comparison]:
    """`comparison_with`, and the baseline's report (the HTML page shows its conversations
    beside this run's: docs/reports.md, "Conversation view")."""
    try:
        base = side_named(baseline, agent)
        base_report = base.report(warn)
    except SideError as error:
        raise SideError(f"--baseline {baseline}: {error}") from None
    head_ref = RunRef(label=head_label, run_id=report.run_id, agent_path=head_agent or str(agent))
    comparison = compare_reports(
        base_report, report, base_ref=base.ref, head_ref=head_ref, score_threshold=threshold
    )
    return base_report, comparison
