"""Which two runs the editor compares for a document's regression marks, read from disk (in a
worker thread: `regressions` calls this through `asyncio.to_thread`, never on the loop).

* **head** (what the document shows now): this session's results of the document (editor
  runs, as kept by `inline_results`) when it has any, else the latest stored run of the agent.
* **base**: the stored run tagged by the `holodeck.baseline` setting; unset, the stored run
  before head — for a stored head the one before it, for the session the latest stored run
  that is not the session's own stored "Run all" (`editor_request`).

Nothing to compare (no stored runs, an unknown tag, the baseline *is* head) is a reason, not
an error: the editor then shows no marks, and the compare command says why.

Stored runs never change once written, so their reports are read once per process
(`_reports`, by folder); the listing is read again each time (it is small: one run.json per
run), so a run stored by the CLI meanwhile is seen.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.schema.comparison import Comparison, RunRef

if TYPE_CHECKING:
    from holodeck_lsp.runner.run_history import StoredRun
    from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult

#: Stored reports read so far, by run folder (a run folder is never rewritten).
_reports: dict[Path, TestReport] = {}
_reports_lock = threading.Lock()
#: At most this many reports are kept (a few agents' baselines and heads).
_KEPT_REPORTS = 16


@dataclass(frozen=True, slots=True)
class SessionCase:
    """One case of this session's results, as `inline_results` keeps it (a snapshot)."""

    index: int
    name: str | None
    #: The whole case's last result, when the last run of it was a whole-case run.
    result: TestResult | None
    turns: tuple[TurnResult, ...]


@dataclass(frozen=True, slots=True)
class SessionHead:
    cases: tuple[SessionCase, ...]
    agent_name: str
    #: The stored run of this session's last "Run all", if it was stored.
    stored_id: str | None = None


@dataclass(frozen=True, slots=True)
class Sides:
    comparison: Comparison
    head_report: TestReport
    #: Head is this session's results (not a stored run): its untouched base turns are
    #: left out of the comparison (see `compared`).
    session: bool
    #: The baseline run's report: its conversations are shown beside head's in the page.
    base_report: TestReport | None = None


def read_report(run: StoredRun) -> TestReport:
    """The stored run's report, read once (raises RunUnreadable)."""
    with _reports_lock:
        cached = _reports.get(run.folder)
    if cached is not None:
        return cached
    report = run.load_report()
    with _reports_lock:
        if len(_reports) >= _KEPT_REPORTS:
            _reports.pop(next(iter(_reports)))
        _reports[run.folder] = report
    return report


def compared(
    agent_path: Path, baseline: str | None, session: SessionHead | None, threshold: float = 0.05
) -> Sides | str:
    """The comparison of head against base for the agent file, or why there is none."""
    from holodeck_lsp.engine.run_comparison import compare_reports
    from holodeck_lsp.runner.run_history import (
        RunNotFound,
        RunUnreadable,
        list_runs,
        resolve,
        runs_folder,
    )
    from holodeck_lsp.runner.run_history.comparison_sides import stored_ref

    folder = runs_folder(agent_path)
    runs = list_runs(folder, agent_path.name)
    if not runs:
        return f"no stored run of {agent_path.name} yet (run it with Run all, or holodeck-lsp run)"
    head_run: StoredRun | None = None
    if session is None:
        head_run = runs[-1]
    if baseline:
        try:
            base_run = resolve(baseline, folder, agent_path.name)
        except RunNotFound as error:
            return f"the baseline setting holodeck.baseline = {baseline!r}: {error}"
    else:
        before = _before(runs, head_run, session)
        if before is None:
            return (
                f"only one stored run of {agent_path.name}: nothing before it to compare with "
                "(run the suite again, or set holodeck.baseline to a tag)"
            )
        base_run = before
    # A session whose Run all was stored as the baseline is still compared with it: turns run
    # one by one since then differ from it.
    if head_run is not None and base_run.id == head_run.id:
        return (
            f"the baseline {baseline} is the latest stored run, the one shown: nothing to "
            "compare (run the suite, or choose an older baseline)"
        )
    try:
        base_report = read_report(base_run)
        head_report = read_report(head_run) if head_run is not None else None
    except RunUnreadable as error:
        return str(error)
    base_ref = stored_ref(baseline or base_run.id, base_run, agent_path)
    if head_run is not None and head_report is not None:
        head_ref = stored_ref(f"latest run {head_run.id}", head_run, agent_path)
    else:
        assert session is not None
        head_report = session_report(session, agent_path, base_report)
        head_ref = RunRef(label="this session's results", agent_path=str(agent_path))
    comparison = compare_reports(
        base_report, head_report, base_ref=base_ref, head_ref=head_ref, score_threshold=threshold
    )
    if head_run is None:
        comparison = _session_only(comparison)
    return Sides(comparison, head_report, head_run is None, base_report)


def _before(
    runs: Sequence[StoredRun], head_run: StoredRun | None, session: SessionHead | None
) -> StoredRun | None:
    if head_run is not None:
        return runs[-2] if len(runs) > 1 else None
    own = session.stored_id if session is not None else None
    others = [run for run in runs if run.id != own]
    return others[-1] if others else None


def session_report(session: SessionHead, agent_path: Path, base: TestReport) -> TestReport:
    """This session's results as a report: each case's last whole-case result, or the turns
    run one by one since. Results carry the model they ran; a case rebuilt from single turns
    takes the session's (or, failing that, the base's only) model, so its turns match the
    base's instead of showing as added."""
    from holodeck_lsp.engine.rollup import summarize
    from holodeck_lsp.schema.results import TestReport, TestResult

    models = [case.result.model for case in session.cases if case.result and case.result.model]
    model = models[0] if models else (base.models[0] if len(base.models) == 1 else None)
    results: list[TestResult] = []
    for case in session.cases:
        if case.result is not None:
            results.append(case.result)
            continue
        turns = sorted(case.turns, key=lambda turn: turn.turn_index)
        results.append(
            TestResult(
                test_name=case.name,
                test_index=case.index,
                turns=list(turns),
                passed=all(turn.passed for turn in turns),
                model=model,
            )
        )
    return TestReport(
        agent_name=session.agent_name,
        agent_config_path=str(agent_path),
        results=results,
        summary=summarize(results),
        timestamp="",
        holodeck_version=base.holodeck_version,
        models=[model] if model else [],
    )


def _session_only(comparison: Comparison) -> Comparison:
    """Session results cover the cases and turns run in this session only: a base turn not
    run here is not "removed" (it is still in the file), so it is left out, and a note says
    how many were."""
    removed = comparison.of_kind("removed")
    if not removed:
        return comparison
    kept = [change for change in comparison.changes if change.kind != "removed"]
    count = len(removed)
    note = (
        f"only the turns run in this session are compared: {count} turn"
        f"{'s' if count != 1 else ''} of the baseline not run here left out"
    )
    return comparison.model_copy(update={"changes": kept, "notes": [*comparison.notes, note]})
