"""Ctrl-C for `holodeck-lsp run`: the first press cancels gracefully (the report is still
written), the second interrupts at once."""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Callable, Iterator
from types import FrameType
from typing import Any


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
