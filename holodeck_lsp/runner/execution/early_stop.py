"""Why a run stopped before every case had run — the one place every early stop goes through,
so each of them (Ctrl-C, `--fail-fast`, a budget, the editor's Stop) leaves the same thing
behind: an unfinished run whose journal holds the cases that did finish, resumable with
`holodeck-lsp run --resume`.

Two ways to stop: `cancel` (the in-flight cases are abandoned, their unanswered turns skipped
as `cancelled`) and `drain` (no new case starts; the ones in flight finish — what a budget
wants, so no money already spent is thrown away). A case that never started is reported
skipped, so the totals still add up, and is not journaled: a resume runs it.
"""

from __future__ import annotations

import asyncio
from enum import StrEnum


class StopReason(StrEnum):
    """Why a run ended early; the value is what run.json's `stopped` holds."""

    #: Ctrl-C in the terminal, Stop in the editor.
    INTERRUPTED = "interrupted"
    #: `--fail-fast`: the first failed case.
    FAIL_FAST = "fail-fast"
    #: A budget (`--max-cost`, `--max-turns`) would have been passed.
    BUDGET = "budget"
    #: The process died (`kill -9`, a crash, a power cut): only ever read from a journal
    #: that has no stored run.json beside it — nothing running can say it.
    CRASHED = "crashed"


class EarlyStop:
    """The run's stop switch. The first reason given wins (a Ctrl-C during a budget's drain
    stays a budget stop, but does cancel what is in flight)."""

    def __init__(self, cancel: asyncio.Event) -> None:
        self.cancel = cancel
        self.reason: StopReason | None = None
        #: What to tell the user, e.g. "--max-cost 2.00 would be passed".
        self.detail: str = ""
        self._draining = False

    def stop(self, reason: StopReason, detail: str = "", *, finish_in_flight: bool = False) -> None:
        """Stop the run for `reason`: with `finish_in_flight`, only no new case starts."""
        if self.reason is None:
            self.reason, self.detail = reason, detail
        if finish_in_flight:
            self._draining = True
        else:
            self.cancel.set()

    @property
    def starting_allowed(self) -> bool:
        """May another case start? (Checked by the executor as a case takes its slot.)"""
        return not self._draining and not self.cancel.is_set()

    @property
    def stopped(self) -> StopReason | None:
        """The reason, also when someone set `cancel` directly (Ctrl-C's handler does)."""
        if self.reason is None and self.cancel.is_set():
            return StopReason.INTERRUPTED
        return self.reason if (self.reason is not None and self.stopping) else None

    @property
    def stopping(self) -> bool:
        return self._draining or self.cancel.is_set()
