"""What a turn's outcome says beyond the turn: whether it suggests the session is broken (the
case runner then stops sending on it), and whether a metric of the turn can stop its case
(`type: code` with `fail_on_error: true`: docs/grading.md)."""

from __future__ import annotations

from collections.abc import Sequence

from holodeck_lsp.runner.backend_errors import (
    BackendError,
    BackendSessionError,
    BackendTimeoutError,
)
from holodeck_lsp.runner.execution.interrupts import Interrupted
from holodeck_lsp.schema.metrics import AnyMetric, CodeMetric


def may_stop_the_case(metrics: Sequence[AnyMetric]) -> bool:
    """Whether a metric of the turn can stop its case (`type: code`, `fail_on_error: true`)."""
    return any(isinstance(m, CodeMetric) and m.fail_on_error for m in metrics)


def counts_as_failure(outcome: BaseException | Interrupted) -> bool:
    """Timeouts, session errors and unexpected exceptions suggest a broken session; other
    backend errors (a cassette with no such turn, say) say nothing about the session."""
    if isinstance(outcome, Interrupted):
        return True
    if isinstance(outcome, BackendSessionError | BackendTimeoutError):
        return True
    return not isinstance(outcome, BackendError)
