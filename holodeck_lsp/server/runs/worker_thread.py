"""Runs happen in a worker thread with its own event loop: SDKs, function tools and code
graders may block, and the server's loop must keep answering (diagnostics, hover, …). This
module bridges the two loops: the run's progress events are handed to the server's loop, and
a cancel from the server's loop reaches the run's."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from holodeck_lsp.server import threads

if TYPE_CHECKING:
    from holodeck_lsp.runner.execution.events import CaseRef
    from holodeck_lsp.schema.results import TestResult, TurnResult

_T = TypeVar("_T")


@dataclass(slots=True)
class RunHandle:
    """Cancels a run whose event loop lives in another thread (thread-safe)."""

    _lock: threading.Lock = field(default_factory=threading.Lock)
    _loop: asyncio.AbstractEventLoop | None = None
    _event: asyncio.Event | None = None
    cancel_requested: bool = False

    def attach(self, loop: asyncio.AbstractEventLoop, event: asyncio.Event) -> None:
        with self._lock:
            self._loop, self._event = loop, event
            if self.cancel_requested:
                event.set()

    def cancel(self) -> None:
        with self._lock:
            self.cancel_requested = True
            if self._loop is not None and self._event is not None:
                self._loop.call_soon_threadsafe(self._event.set)


class ServerSink:
    """The executor's progress callbacks (on the run's loop) passed to the server's loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_turn: Callable[[CaseRef, TurnResult], None],
        on_case: Callable[[CaseRef, TestResult], None],
        on_start: Callable[[CaseRef], None] | None = None,
    ) -> None:
        self._loop, self._on_turn, self._on_case = loop, on_turn, on_case
        self._on_start = on_start

    def case_started(self, case: CaseRef) -> None:
        if self._on_start is not None:
            self._loop.call_soon_threadsafe(self._on_start, case)

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self._loop.call_soon_threadsafe(self._on_turn, case, turn)

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self._loop.call_soon_threadsafe(self._on_case, case, result)


def in_own_thread(
    work: Callable[[], Coroutine[Any, Any, _T]], stop: Callable[[], None]
) -> asyncio.Future[_T]:
    """Run `work()` in a new thread with its own event loop; `stop` cancels it when the
    server exits (`threads.settle` then waits for it before the interpreter finalises)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()

    def settle(result: _T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def main() -> None:
        try:
            result = asyncio.run(work())
        except BaseException as error:  # handed to the awaiting side, which reports it
            loop.call_soon_threadsafe(settle, None, error)
        else:
            loop.call_soon_threadsafe(settle, result, None)

    threads.start(main, "holodeck-run", stop)
    return future
