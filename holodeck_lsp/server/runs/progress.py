"""`window/workDoneProgress` for a run: created when the client supports it, begun before the
run's backend is built (which may take seconds importing an SDK) with the report `starting
backend…`, then one report per finished turn (with the run's totals on a long run:
progress_totals.py; a simulated case counted at its most turns, `(2/≤11)`, until it ends:
runner/turn_total.py), and between turns, once a second (`heartbeat`, called by the run's
heartbeat: runner/execution/heartbeat.py), the last report again with its totals brought up
to date when they changed — rate, ETA, "waiting on rate limit" move during a stall;
cancellable — cancelling the progress cancels the run (the executor still returns the
partial report, with the rest skipped as `cancelled`; cancelled while the backend starts, no
case is run)."""

from __future__ import annotations

import logging
import uuid
from collections.abc import Iterable
from typing import TYPE_CHECKING

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.runs.inline_results import mark
from holodeck_lsp.server.runs.progress_totals import RunTotals
from holodeck_lsp.server.runs.worker_thread import RunHandle

if TYPE_CHECKING:
    from holodeck_lsp.runner.execution.events import CaseRef
    from holodeck_lsp.runner.selection import PlannedCase
    from holodeck_lsp.runner.turn_total import TurnTotal
    from holodeck_lsp.schema.results import TurnResult

log = logging.getLogger("holodeck_lsp.server.runs")


class RunProgress:
    """The progress of one run (does nothing when the client takes no progress)."""

    def __init__(self, server: HolodeckServer, total_turns: int = 0) -> None:
        self._server = server
        self._total = total_turns
        self._turns: TurnTotal | None = None
        self._done = 0
        self._last_turn: str | None = None
        self._token: str | None = None
        self.totals = RunTotals(total_turns)
        #: The last report without its totals, its percentage, and the message sent. Every
        #: report carries the percentage, as the begin does (0): VS Code's notification
        #: did not show `starting backend…` and `running N turns…` when they had none.
        self._head: str | None = None
        self._percentage = 0
        self._sent = ""

    async def begin(self, title: str, handle: RunHandle) -> None:
        window = self._server.client_capabilities.window
        if not (window and window.work_done_progress):
            return
        token = f"holodeck-run-{uuid.uuid4()}"
        progress = self._server.work_done_progress
        try:
            await progress.create_async(token)
        except Exception as error:
            log.warning("workDoneProgress/create failed: %s", error)
            return
        progress.begin(
            token, types.WorkDoneProgressBegin(title=title, cancellable=True, percentage=0)
        )
        future = progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f: handle.cancel() if f.cancelled() else None)
        self._token = token

    def report(self, message: str) -> None:
        if self._token is not None:
            self._server.work_done_progress.report(
                self._token,
                types.WorkDoneProgressReport(
                    message=message, percentage=self._percentage, cancellable=True
                ),
            )

    def planned(self, planned: Iterable[PlannedCase]) -> None:
        """The backend is up: the run's turns are counted from here."""
        from holodeck_lsp.runner.turn_total import TurnTotal

        self._turns = turns = TurnTotal.of(planned)
        self._total = total_turns = turns.total
        self.totals = RunTotals(total_turns)
        counted = f"{total_turns} turn{'s' if total_turns != 1 else ''}"
        self._head = self._sent = f"running {'up to ' if turns.open_bounds else ''}{counted}…"
        self.report(self._head)

    def case_started(self, ref: CaseRef) -> None:
        self.totals.case_started()

    def case_finished(self, ref: CaseRef) -> None:
        self.totals.case_finished()
        if self._turns is not None and ref.simulated:
            # Its conversation is over: the bound becomes the turns it took.
            self._turns.case_finished(ref)
            self._total = self.totals.total_turns = self._turns.total
            self._report_turn()

    def turn_finished(self, ref: CaseRef, result: TurnResult) -> None:
        self._done += 1
        self.totals.turn_finished(result)
        if self._turns is not None:
            self._turns.turn_finished(ref)
        self._last_turn = f"{ref.label} turn {result.turn_index} {mark(result)}"
        self._report_turn()

    def _report_turn(self) -> None:
        if self._token is None or self._last_turn is None:
            return
        total = self._turns.text() if self._turns is not None else str(self._total)
        self._head = f"{self._last_turn} ({self._done}/{total})"
        self._percentage = min(100, self._done * 100 // max(1, self._total))
        self._send_totals()

    def heartbeat(self) -> None:
        """Between turns: the last report again, if its totals moved since it was sent."""
        if self._head is not None:
            self._send_totals()

    def _send_totals(self) -> None:
        if self._token is None or self._head is None:
            return
        message = self._head + "".join(f" · {part}" for part in self.totals.parts())
        if message == self._sent:
            return
        self._sent = message
        self._server.work_done_progress.report(
            self._token,
            types.WorkDoneProgressReport(
                message=message, percentage=self._percentage, cancellable=True
            ),
        )

    def end(self, message: str) -> None:
        self._head = None  # a heartbeat after the end sends nothing
        token, self._token = self._token, None
        if token is None:
            return
        self._server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
        self._server.work_done_progress.tokens.pop(token, None)
