"""The progress sinks a run session puts in front of its caller's: one masks secrets in every
result handed on, one stops the run at the first failed case (`--fail-fast`), one shows the
cases one after the other when they run one at a time (`--parallel 1`), one journals every case
that finished (so a crash loses none of them)."""

from __future__ import annotations

import asyncio
import dataclasses
import logging
from collections.abc import Callable

from holodeck_lsp.engine.rollup import cut_short
from holodeck_lsp.runner.execution.events import CaseJournal, CaseRef, ProgressSink
from holodeck_lsp.runner.secrets import Redactor
from holodeck_lsp.schema.results import TestResult, TurnResult

#: One session of a case (`CaseRef.key`).
_Key = tuple[int, str | None, int | None]
_log = logging.getLogger(__name__)


class Journaling:
    """Journals each case session that finished whole, then passes the event on — also after
    the run was cancelled. A case cut short (turns skipped as `cancelled`) is not journaled,
    so a resume runs it again. Put first in the chain, so
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
        # After a Ctrl-C too, each case that finished whole is kept: only one cut short
        # (a turn skipped as cancelled) runs again on resume.
        if self._journal is not None and not cut_short(result):
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


class OneCaseAtATime:
    """At `--parallel 1` a case's judges may still be answering when the next case starts
    sending (judging overlaps sending), so its events would interleave with the next case's.
    This shows each case whole, in start order: a later case's events wait until the cases
    started before it have finished, then follow at once. Counts and results are unchanged;
    only when the display hears of them moves."""

    def __init__(self, inner: ProgressSink) -> None:
        self._inner = inner
        #: Cases started and not yet finished on the display, in start order.
        self._open: list[_Key] = []
        self._held: dict[_Key, list[Callable[[], None]]] = {}
        #: Cases whose `case_finished` is among their held events.
        self._finished: set[_Key] = set()

    def case_started(self, case: CaseRef) -> None:
        self._open.append(case.key)
        self._event(case.key, lambda: self._inner.case_started(case))

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self._event(case.key, lambda: self._inner.turn_finished(case, turn))

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self._event(case.key, lambda: self._inner.case_finished(case, result), last=True)

    def _event(self, key: _Key, show: Callable[[], None], last: bool = False) -> None:
        if key in self._open and self._open[0] != key:
            self._held.setdefault(key, []).append(show)
            if last:
                self._finished.add(key)
            return
        show()
        if last and key in self._open:
            self._open.remove(key)
            self._release()

    def _release(self) -> None:
        """The case shown has finished: show what the next ones have done meanwhile."""
        while self._open:
            key = self._open[0]
            for show in self._held.pop(key, []):
                show()
            if key not in self._finished:
                return
            self._finished.discard(key)
            self._open.pop(0)
