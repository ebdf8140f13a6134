"""What the run feature keeps per document, shared by its modules: the runs in progress, the
last answers of each case (what a re-grade replays), the case texts last graded, the last
report — and how a finished case is stored, announced and shown."""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.runs.inline_results import InlineResults

if TYPE_CHECKING:
    from holodeck_lsp.runner.secrets import Redactor
    from holodeck_lsp.schema.results import TestReport, TestResult
    from holodeck_lsp.server.features.diagnostics.engine import DiagnosticsEngine
    from holodeck_lsp.server.runs.worker_thread import RunHandle

RESULT_NOTIFICATION: Final = "holodeck/runResult"


class Runner:
    def __init__(
        self, server: HolodeckServer, results: InlineResults, engine: DiagnosticsEngine
    ) -> None:
        self.server = server
        self.results = results
        #: The checked documents: which agent an include belongs to, and republishing.
        self.engine = engine
        self.running: dict[str, RunHandle] = {}
        #: The last full run of each case, kept across edits: what a re-grade replays.
        self.answers: dict[str, dict[int, TestResult]] = {}
        #: Per document and case, the case text last graded — or, for a case never graded,
        #: its text when the document was first checked: a re-grade on edit starts when the
        #: case's text moves away from it.
        self.graded_texts: dict[str, dict[int, str]] = {}
        #: The last report of a run (not a re-grade) started from each document.
        self.reports: dict[str, TestReport] = {}
        #: The redactor of that run: a page rendered from its report is masked again with it.
        self.redactors: dict[str, Redactor] = {}
        #: Per (document, case), when its last result that was not a quiet re-grade arrived
        #: (a counter): a re-grade on edit that ends after a run of the case ended must not
        #: replace that run's result with its older view.
        self._stamps: dict[tuple[str, int], int] = {}
        self._clock = 0

    def stamp(self, uri: str, index: int) -> int:
        return self._stamps.get((uri, index), 0)

    def agent_of(self, uri: str) -> str | None:
        """The agent a document's cases belong to: itself, or for a `test_cases_file`
        include the (first, by URI) agent that includes it."""
        if self.engine.is_agent(uri):
            return uri
        including = sorted(self.engine.agents_including(uri))
        return including[0] if including else None

    def finished(
        self,
        uri: str,
        index: int,
        case_text: str | None,
        result: TestResult,
        turn: int | None,
        regraded: bool,
        *,
        quiet: bool = False,
    ) -> None:
        """Store one finished case (its secrets already masked by the run session),
        announce it (`holodeck/runResult`) and show it. `quiet`: re-graded while the user
        types (`regrade_on_edit`), shown as information rather than as a failed run."""
        if not quiet:
            self._clock += 1
            self._stamps[(uri, index)] = self._clock
        if case_text is not None:
            # A single-turn case run by its turn is the whole case.
            graded = turn if result.turns is not None else None
            self.results.record(
                uri, index, case_text, result, graded, regraded=regraded, quiet=quiet
            )
            self.graded_texts.setdefault(uri, {})[index] = case_text
        self.server.protocol.notify(
            RESULT_NOTIFICATION,
            {
                "uri": uri,
                "caseIndex": index,
                "turn": turn,
                "regraded": regraded,
                "quiet": quiet,
                "result": result.model_dump(mode="json"),
            },
        )
        self.refresh(uri)
        self.server.notify_activity()  # the run allocates too (see idle_gc)

    def refresh(self, uri: str) -> None:
        self.engine.republish(uri)
        workspace = self.server.client_capabilities.workspace
        if workspace and workspace.code_lens and workspace.code_lens.refresh_support:
            self.server.workspace_code_lens_refresh(None)
        if workspace and workspace.inlay_hint and workspace.inlay_hint.refresh_support:
            self.server.workspace_inlay_hint_refresh(None)
