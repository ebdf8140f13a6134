"""The run's progress events, seen by its trace first and then passed on unchanged: cases
open and close their spans, graded turns close theirs with their evaluation events."""

from __future__ import annotations

import logging
from typing import Protocol

from holodeck_lsp.runner.execution.events import CaseRef, ProgressSink
from holodeck_lsp.schema.results import TestResult, TurnResult

_log = logging.getLogger(__name__)


class _Receiver(Protocol):
    def case_started(self, case: CaseRef) -> None: ...

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None: ...

    def case_finished(self, case: CaseRef, result: TestResult) -> None: ...


class TracedProgress:
    def __init__(self, trace: _Receiver, inner: ProgressSink | None) -> None:
        self._trace = trace
        self._inner = inner

    def case_started(self, case: CaseRef) -> None:
        self._tell("case_started", case)
        if self._inner is not None:
            self._inner.case_started(case)

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self._tell("turn_finished", case, turn)
        if self._inner is not None:
            self._inner.turn_finished(case, turn)

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self._tell("case_finished", case, result)
        if self._inner is not None:
            self._inner.case_finished(case, result)

    def _tell(self, event: str, *args: object) -> None:
        try:
            getattr(self._trace, event)(*args)
        except Exception:  # a tracing bug must never fail or lose a case
            _log.exception("tracing %s failed", event)
