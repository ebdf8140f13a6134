"""Regression marks: each turn of a document that regressed against the baseline run is marked
in its lens title (`⇣ regressed`), in the Testing view (`holodeck/discoverTests`) and in the
hover on its `input:`, which says what changed. `baseline_sides` says which runs are compared.

What is compared cannot mislead: a turn is marked only when the document's `input:` is the
one head ran (its input hash), and the engine compares a turn only when base and head sent
the same input — an edited turn is "edited" (the hover says so), never a regression.

Off the event loop, once per (document version, session results, baseline setting): the run
folder is listed and reports are read in a worker thread (`asyncio.to_thread`), and lenses,
hovers and discovery of the same version share the answer (`view`). A hover asked before
any lens of the version waits for the same computation; typing never waits for the disk.
"""

from __future__ import annotations

import asyncio
import logging
import weakref
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Final

from holodeck_lsp.server.documents.index import uri_to_path
from holodeck_lsp.server.documents.parsed import parsed_documents

if TYPE_CHECKING:
    from holodeck_lsp.runner.secrets import Redactor
    from holodeck_lsp.schema.comparison import Comparison, SideOfTurn, TurnChange
    from holodeck_lsp.schema.results import TestReport
    from holodeck_lsp.server.documents.parsed import Parsed
    from holodeck_lsp.server.runs.baseline_sides import SessionHead
    from holodeck_lsp.server.runs.inline_results import CaseRecord
    from holodeck_lsp.server.runs.run_locations import CaseLocation, TurnLocation
    from holodeck_lsp.server.runs.state import Runner

log = logging.getLogger("holodeck_lsp.server.runs")

REGRESSED: Final = "⇣ regressed"
#: What the hover calls each kind of change (the kinds a turn still in the file can have).
_HEADINGS: Final = {
    "regression": "⇣ Regressed",
    "fix": "⇡ Fixed",
    "new_reason": "✗ Still failing, for a different reason",
    "score": "Score moved",
    "edited": "Edited since the baseline: not compared",
    "added": "New since the baseline",
    "not_run": "Not run",
}


@dataclass(slots=True)
class BaselineView:
    """What the marks of one document version are drawn from."""

    comparison: Comparison | None = None
    #: Why there is no comparison (no stored run, unknown tag, …).
    reason: str | None = None
    head_report: TestReport | None = None
    session_head: bool = False
    #: The baseline's report, for the page's conversation view (docs/reports.md).
    base_report: TestReport | None = None
    #: (case label, turn index) -> its changes (several with a model matrix).
    by_turn: dict[tuple[str, int], list[TurnChange]] = field(default_factory=dict)
    #: What text drawn from this view is masked with (built on first use: `masked`).
    redactor: Redactor | None = None

    def changes_of(self, case: CaseLocation, turn: TurnLocation) -> list[TurnChange]:
        """The turn's changes, only when the document's input is the one head ran."""
        from holodeck_lsp.engine.run_comparison import input_hash

        found = self.by_turn.get((case_label(case), turn.index), [])
        if not found or turn.input_text is None:
            return []
        written = input_hash(turn.input_text)
        return [c for c in found if c.head is not None and c.head.input_hash == written]

    def regressed(self, case: CaseLocation, turn: TurnLocation) -> bool:
        return any(
            change.kind == "regression" and not change.flaky
            for change in self.changes_of(case, turn)
        )


def case_label(case: CaseLocation) -> str:
    """How the comparison names a case: its name, else `#index` (engine/comparison_rows)."""
    return case.name or f"#{case.index}"


_Key = tuple[object, ...]


_of: weakref.WeakKeyDictionary[Runner, Regressions] = weakref.WeakKeyDictionary()


def regressions_of(runner: Runner) -> Regressions:
    """The run feature's one `Regressions` (kept beside the runner, not in it: `state` stays
    free of this module)."""
    found = _of.get(runner)
    if found is None:
        found = _of[runner] = Regressions(runner)
    return found


class Regressions:
    """The baseline view of each document, computed off the loop and kept per version."""

    def __init__(self, runner: Runner) -> None:
        self._runner = runner
        self._views: dict[str, tuple[_Key, BaselineView]] = {}
        self._pending: dict[str, tuple[_Key, asyncio.Task[BaselineView]]] = {}
        #: The stored run of each document's last "Run all" (editor_request).
        self.stored: dict[str, str] = {}

    async def view(self, uri: str, parsed: Parsed | None = None) -> BaselineView:
        runner = self._runner
        agent_uri = runner.agent_of(uri)
        agent_path = uri_to_path(agent_uri) if agent_uri is not None else None
        if parsed is None:
            parsed = await parsed_documents(runner.server).get(uri)
        if agent_path is None or parsed is None:
            return BaselineView(reason="not an agent file (or one that does not parse)")
        _, cases = runner.results.current(parsed, uri, every_case=False)
        baseline = runner.server.settings.baseline
        # The parse identifies the version; the results' objects identify what was run.
        signature = tuple(
            (index, id(record.result), tuple(id(turn) for turn in record.turns.values()))
            for index, record in sorted(cases.items())
        )
        key: _Key = (parsed.document, signature, baseline)
        kept = self._views.get(uri)
        if kept is not None and kept[0] == key:
            return kept[1]
        pending = self._pending.get(uri)
        if pending is None or pending[0] != key or pending[1].cancelled():
            session = self._session(uri, parsed, cases) if cases else None
            task = asyncio.ensure_future(self._compute(agent_path, baseline, session))
            pending = (key, task)
            self._pending[uri] = pending
        # Shielded: the computation is shared by every request of the version, and a client's
        # cancel of one request (VS Code cancels lens requests it no longer needs) would
        # otherwise cancel it for all — the next lens request answered "canceled" and the
        # file showed no lenses until the next edit.
        view = await asyncio.shield(pending[1])
        if self._pending.get(uri) is pending:
            del self._pending[uri]
        self._views[uri] = (key, view)
        return view

    async def masked(self, uri: str, view: BaselineView, text: str) -> str:
        from holodeck_lsp.server.runs.baseline_masking import redactor_of

        if view.redactor is None:
            view.redactor = await redactor_of(self._runner, uri)
        return view.redactor.text(text)

    async def hover_text(self, parsed: Parsed, uri: str, line: int, character: int) -> str | None:
        """A `ResultHover`: on a turn's `input:` that changed against the baseline, what
        changed (masked)."""
        if self._runner.agent_of(uri) is None:
            return None
        suite, _ = self._runner.results.current(parsed, uri)  # located once per version
        if suite is None:
            return None
        for case in suite.cases:
            for turn in case.turns:
                (start, end) = turn.input
                if not start <= (line, character) <= end:
                    continue
                view = await self.view(uri, parsed)
                changes = view.changes_of(case, turn)
                if view.comparison is None or not changes:
                    return None
                return await self.masked(uri, view, change_hover(view.comparison, changes))
        return None

    def forget(self, uri: str) -> None:
        self._views.pop(uri, None)

    def _session(self, uri: str, parsed: Parsed, cases: dict[int, CaseRecord]) -> SessionHead:
        from holodeck_lsp.server.runs.baseline_sides import SessionCase, SessionHead
        from holodeck_lsp.server.runs.run_locations import locate_suite

        suite = locate_suite(parsed.document.root)
        names = {case.index: case.name for case in suite.cases} if suite is not None else {}
        report = self._runner.reports.get(uri)
        return SessionHead(
            tuple(
                SessionCase(
                    index,
                    record.result.test_name if record.result is not None else names.get(index),
                    record.result,
                    tuple(record.turns.values()),
                )
                for index, record in sorted(cases.items())
            ),
            report.agent_name if report is not None else "",
            self.stored.get(uri),
        )

    async def _compute(
        self, agent_path: Path, baseline: str | None, session: SessionHead | None
    ) -> BaselineView:
        from holodeck_lsp.server.runs.baseline_sides import compared

        try:
            sides = await asyncio.to_thread(compared, agent_path, baseline, session)
        except Exception:  # a bug here must not cost the lenses: no marks, logged
            log.exception("comparing %s with its baseline failed", agent_path)
            return BaselineView(reason="the comparison failed (see the server log)")
        if isinstance(sides, str):
            return BaselineView(reason=sides)
        by_turn: dict[tuple[str, int], list[TurnChange]] = {}
        for change in sides.comparison.changes:
            by_turn.setdefault((change.case, change.turn_index), []).append(change)
        return BaselineView(
            sides.comparison,
            None,
            sides.head_report,
            sides.session,
            base_report=sides.base_report,
            by_turn=by_turn,
        )


# -- what the marks say ------------------------------------------------------------------------


def base_name(comparison: Comparison) -> str:
    base = comparison.base
    if base.run_id is not None and base.label != base.run_id:
        return f"{base.label} (run {base.run_id})"
    return f"run {base.label}"


def _side(side: SideOfTurn | None) -> str:
    if side is None:
        return "absent"
    if side.runs == 0:
        return "not run"
    verdict = "✓ passed" if side.passed else "✗ failed"
    rate = f" ({side.passes}/{side.runs})" if side.runs > 1 else ""
    return verdict + rate


def change_hover(comparison: Comparison, changes: Iterable[TurnChange]) -> str:
    """Markdown: per change, base verdict/rate/reason → now, and the metric deltas."""
    blocks = []
    several = len(comparison.base.models) > 1 or len(comparison.head.models) > 1
    for change in changes:
        model = f" on `{change.model}`" if change.model and several else ""
        heading = _HEADINGS.get(change.kind, change.kind)
        lines = [f"**{heading}**{model} against {base_name(comparison)}"]
        if change.kind != "edited":
            lines.append(f"- before: {_side(change.base)} → now: {_side(change.head)}")
        if change.base is not None and change.base.reason and not change.base.passed:
            lines.append(f"- before, it failed: {_quoted(change.base.reason)}")
        if change.head is not None and change.head.reason and not change.head.passed:
            lines.append(f"- now it fails: {_quoted(change.head.reason)}")
        for delta in change.metric_deltas:
            moved = delta.delta
            by = f" ({moved:+.2f})" if moved is not None else ""
            scores = f"{_score(delta.base_score)} → {_score(delta.head_score)}"
            lines.append(f"- `{delta.metric_name}` {scores}{by}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


def _score(score: float | None) -> str:
    return "–" if score is None else f"{score:.2f}"


def _quoted(reason: str) -> str:
    flat = " ".join(reason.split())
    return flat if len(flat) <= 300 else flat[:299] + "…"


def regression_count(view: BaselineView, case: CaseLocation) -> int:
    return sum(view.regressed(case, turn) for turn in case.turns)
