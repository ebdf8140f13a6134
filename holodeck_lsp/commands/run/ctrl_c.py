"""Ctrl-C for `holodeck-lsp run`: the first press says so at once and cancels gracefully (the
report is still written, every case that finished is journaled), the second interrupts at
once. The first press's wait is bounded (docs/running.md, "Cancellation"): the cases in flight
get the executor's IN_FLIGHT_GRACE seconds, then are abandoned, and worker threads still busy
(a grader that sleeps, a tool that hangs) neither hold up the event loop's shutdown nor the
process's exit (`run_until_done`, `exit_without_waiting`)."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
import sys
import threading
from collections.abc import Callable, Coroutine, Iterator
from concurrent.futures import ThreadPoolExecutor
from types import FrameType
from typing import Any, TypeVar

T = TypeVar("T")

#: Said the moment Ctrl-C is pressed, before anything winds down.
CANCELLING = "holodeck-lsp: cancelling… (Ctrl-C again to stop now)\n"


class CtrlC:
    """SIGINT for the whole command. The first Ctrl-C cancels gracefully: during the run it
    sets the run's `cancel` event (sessions closed, unanswered turns skipped as `cancelled`);
    before the run it makes the run start cancelled; after it, the reports are still written.
    The second Ctrl-C interrupts at once (KeyboardInterrupt, as Python's default)."""

    def __init__(self) -> None:
        self.pressed = False
        self._wake: Callable[[], object] | None = None
        self._previous: Any = None
        self._installed = False
        self._executors: list[_AbandonableExecutor] = []

    def __enter__(self) -> CtrlC:
        try:
            previous = signal.getsignal(signal.SIGINT)
            if previous is not signal.SIG_IGN:  # e.g. started in the background: keep ignoring
                signal.signal(signal.SIGINT, self._on_interrupt)
                self._previous, self._installed = previous, True
        except ValueError:  # not the main thread: Ctrl-C is not ours to handle
            pass
        return self

    def __exit__(self, *exc: object) -> None:
        if self._installed:
            previous = self._previous if self._previous is not None else signal.SIG_DFL
            signal.signal(signal.SIGINT, previous)

    def _on_interrupt(self, signum: int, frame: FrameType | None) -> None:
        if self.pressed:
            signal.signal(signal.SIGINT, signal.default_int_handler)
            raise KeyboardInterrupt
        self.pressed = True
        # os.write: unbuffered, so safe even if the handler interrupted a write to stderr.
        with contextlib.suppress(OSError):
            os.write(sys.stderr.fileno(), ("\n" + CANCELLING).encode("utf-8"))
        for executor in self._executors:
            executor.abandon = True
        if self._wake is not None:
            self._wake()

    @contextlib.contextmanager
    def cancelling(self, loop: asyncio.AbstractEventLoop, cancel: asyncio.Event) -> Iterator[None]:
        """While the run goes on, Ctrl-C sets `cancel`. The handler runs between bytecodes of
        the main thread, maybe while the loop waits in select: `call_soon_threadsafe` wakes it."""
        if self.pressed:
            cancel.set()
        self._wake = lambda: loop.call_soon_threadsafe(cancel.set)
        try:
            yield
        finally:
            self._wake = None

    def run_until_done(self, main: Coroutine[Any, Any, T]) -> T:
        """`asyncio.run(main)`, but after a Ctrl-C the loop's shutdown does not wait for its
        worker threads (a grader still sleeping in `asyncio.to_thread`)."""
        executor = _AbandonableExecutor()
        executor.abandon = self.pressed
        self._executors.append(executor)
        try:
            with asyncio.Runner() as runner:
                runner.get_loop().set_default_executor(executor)
                return runner.run(main)
        finally:
            self._executors.remove(executor)

    def exit_without_waiting(self, status: int) -> None:
        """After a Ctrl-C, everything written: end the process now rather than join worker
        threads still busy in user code (Python joins them at exit, however long they take)."""
        if not self.pressed:
            return
        busy = [
            thread
            for thread in threading.enumerate()
            if thread is not threading.main_thread() and not thread.daemon
        ]
        if busy:
            with contextlib.suppress(OSError, ValueError):
                sys.stdout.flush()
                sys.stderr.flush()
            os._exit(status)


class _AbandonableExecutor(ThreadPoolExecutor):
    """The loop's default executor; once abandoned, its shutdown does not wait."""

    abandon = False

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        super().shutdown(wait=wait and not self.abandon, cancel_futures=cancel_futures)
