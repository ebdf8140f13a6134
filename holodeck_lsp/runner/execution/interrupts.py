"""The race every call a case makes to its agent runs: the call against the case's
`llm_timeout` and against the run's cancellation (Ctrl-C, `--fail-fast`, the editor's Stop).

A call that loses the race is cancelled and given GRACE_SECONDS to unwind, so the session is
not used by the next turn while the abandoned call still runs; a session opened after its case
gave up on it is closed, not leaked.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Coroutine
from dataclasses import dataclass
from typing import Any, TypeVar

from holodeck_lsp.runner.backends.base import AgentSession, BackendError
from holodeck_lsp.runner.backends.case_sessions import CANCELLED, timeout_message

_log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: Seconds an interrupted send or a closing session gets to wind down before we move on.
GRACE_SECONDS = 5.0


@dataclass(slots=True)
class Interrupted:
    """The call lost the race: why (the timeout's message, or CANCELLED)."""

    reason: str
    timed_out: bool = False


async def race(
    work: Coroutine[Any, Any, _T],
    *,
    cancelled: asyncio.Future[Any],
    cancel: asyncio.Event,
    timeout: float | None,
    on_abandon: Callable[[Any], None] | None = None,
) -> _T | BaseException | Interrupted:
    """`work`'s result or exception, or why it was interrupted (timeout, cancellation).
    `cancelled` is the run's future that completes when `cancel` is set; `on_abandon` gets
    the result of a call that finishes after it was given up on."""
    task: asyncio.Task[_T] = asyncio.ensure_future(work)
    try:
        await asyncio.wait((task, cancelled), timeout=timeout, return_when=asyncio.FIRST_COMPLETED)
    except asyncio.CancelledError:
        task.cancel(CANCELLED)
        raise
    if task.done():
        if task.cancelled():
            return BackendError("the backend cancelled the call")
        error = task.exception()
        return error if error is not None else task.result()
    if cancel.is_set():
        interrupted = Interrupted(CANCELLED)
    else:
        assert timeout is not None  # only a timeout ends the wait otherwise
        interrupted = Interrupted(timeout_message(timeout), timed_out=True)
    await abandon(task, interrupted.reason, on_abandon)
    return interrupted


async def abandon(
    task: asyncio.Task[Any], reason: str, on_result: Callable[[Any], None] | None = None
) -> None:
    """Cancel `task` with `reason` and give it a moment to unwind, so the session is not
    used concurrently by the next turn (or by `close`)."""
    task.cancel(reason)

    def settle(done: asyncio.Task[Any]) -> None:
        if done.cancelled():
            return
        error = done.exception()  # retrieved, so asyncio does not warn about it
        if error is None and on_result is not None:
            on_result(done.result())

    task.add_done_callback(settle)
    await asyncio.wait((task,), timeout=GRACE_SECONDS)


def close_when_opened(session: AgentSession) -> None:
    """A session created after its case gave up on it is closed, not leaked."""
    closing = asyncio.ensure_future(close_session(session))
    _pending.add(closing)
    closing.add_done_callback(_pending.discard)


_pending: set[asyncio.Future[None]] = set()


async def close_session(session: AgentSession) -> None:
    try:
        await asyncio.wait_for(session.close(), timeout=GRACE_SECONDS)
    except Exception:  # closing is best effort: the case's result is already known
        _log.warning("closing a session failed", exc_info=True)
