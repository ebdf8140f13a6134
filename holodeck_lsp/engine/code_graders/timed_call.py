"""Calling a grader with a time limit. Python cannot kill a thread: the grader runs in a daemon
worker thread and we stop waiting after the limit; one that never returns keeps running in
the background until it finishes or the process exits, and its result is discarded."""

from __future__ import annotations

import contextvars
import math
import threading
from collections.abc import Callable
from typing import Any

from holodeck_lsp.engine.code_graders.returned_value import GraderContractError


def call_with_timeout(
    grader: Callable[[Any], object], context: Any, timeout: float, label: str
) -> Any:
    """`grader(context)` in a daemon worker thread, waited for `timeout` seconds at most;
    GraderContractError saying it timed out or what it raised."""
    outcome: list[tuple[bool, Any]] = []
    done = threading.Event()

    def work() -> None:
        try:
            outcome.append((True, grader(context)))
        except BaseException as exc:  # user code: SystemExit included
            outcome.append((False, exc))
        finally:
            done.set()

    # The caller's context variables (e.g. a tracing span) stay visible to the grader.
    run_in_context = contextvars.copy_context().run
    worker = threading.Thread(target=run_in_context, args=(work,), name=label, daemon=True)
    worker.start()
    if not done.wait(None if math.isinf(timeout) else timeout):
        raise GraderContractError(f"{label} timed out after {timeout:g}s")
    ok, value = outcome[0]
    if not ok:
        raise GraderContractError(f"{label} raised {describe_exception(value)}")
    return value


def describe_exception(exc: BaseException) -> str:
    message = str(exc)
    name = type(exc).__name__
    return f"{name}: {message}" if message else name
