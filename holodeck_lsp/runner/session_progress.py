"""The progress sinks a run session puts in front of its caller's: one masks secrets in every
result handed on, one stops the run at the first failed case (`--fail-fast`), one journals
every case that finished (so a crash loses none of them)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging

from holodeck_lsp.runner.execution.events import CaseJournal, CaseRef, ProgressSink
from holodeck_lsp.runner.secrets import Redactor
from holodeck_lsp.schema.results import TestResult, TurnResult

_log = logging.getLogger(__name__)


class Journaling:
    """Journals each case session that finished whole, then passes the event on. A case
    finishing after the run was cancelled may have been cut short (turns skipped as
    `cancelled`): it is not journaled, so a resume runs it again. Put first in the chain, so
    the case whose failure stops a `--fail-fast` run is journaled before it sets `cancel`."""

    def __init__(
        self,
        inner: ProgressSink | None,
        journal: CaseJournal,
        cancel: asyncio.Event,
        redactor: Redactor,
    ) -> None:
        self._inner = inner
        self._journal: CaseJournal | None = journal
        self._cancel = cancel
        self._redactor = redactor

    def case_started(self, case: CaseRef) -> None:
        if self._inner is not None:
            self._inner.case_started(case)

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        if self._inner is not None:
            self._inner.turn_finished(case, turn)

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        if self._journal is not None and not self._cancel.is_set():
            try:
                self._journal.record(case.key, self._redactor.model(result))
            except OSError:  # a full disk: the run goes on, only a crash would now lose cases
                _log.warning("the run's journal cannot be written any more", exc_info=True)
                self._journal = None
        if self._inner is not None:
            self._inner.case_finished(case, result)


class FailFast:
    """Passes events on; the first failed case sets `cancel` (the executor then starts no
    new case and skips unanswered turns as `cancelled`)."""

    def __init__(self, inner: ProgressSink | None, cancel: asyncio.Event) -> None:
        self._inner = inner
        self._cancel = cancel
        self.stopped_after: str | None = None

    def case_started(self, case: CaseRef) -> None:
        if self._inner is not None:
            self._inner.case_started(case)

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        if self._inner is not None:
            self._inner.turn_finished(case, turn)

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        if not result.passed and self.stopped_after is None and not self._cancel.is_set():
            self.stopped_after = case.work_label
            self._cancel.set()
        if self._inner is not None:
            self._inner.case_finished(case, result)


class MaskedProgress:
    """The caller's progress sink, given results with secrets masked (the editor forwards
    them to the client as they are)."""

    def __init__(self, inner: ProgressSink, redactor: Redactor) -> None:
        self._inner = inner
        self._redactor = redactor

    def _ref(self, case: CaseRef) -> CaseRef:
        if case.name is None or not self._redactor:
            return case
        return dataclasses.replace(case, name=self._redactor.text(case.name))

    def case_started(self, case: CaseRef) -> None:
        self._inner.case_started(self._ref(case))

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self._inner.turn_finished(self._ref(case), self._redactor.model(turn))

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self._inner.case_finished(self._ref(case), self._redactor.model(result))
