"""Announce a case's turns in turn order, whenever their graders finish.

A judged turn is graded in the background while the next turn is sent (case_runner.py), so
turn 1 can be graded before turn 0's judge answers. Progress shown in grading order looks as
if the turns ran out of order; this holds a graded turn back until every earlier turn of the
case has been announced. Sending and judging still overlap: only the announcement waits.
"""

from __future__ import annotations

from collections.abc import Callable

from holodeck_lsp.schema.results import TurnResult


class TurnOrder:
    """Turns are `expect`ed in the order they are sent and announced (through `announce`)
    in that order as they are graded (`graded`); `flush` announces the graded rest."""

    def __init__(self, announce: Callable[[TurnResult], None]) -> None:
        self._announce = announce
        #: Turn indexes sent but not announced yet, in the order they were sent.
        self._pending: list[int] = []
        self._graded: dict[int, TurnResult] = {}

    def expect(self, index: int) -> None:
        self._pending.append(index)

    def graded(self, turn: TurnResult) -> None:
        if turn.turn_index not in self._pending:  # never expected: nothing to wait for
            self._announce(turn)
            return
        self._graded[turn.turn_index] = turn
        while self._pending and self._pending[0] in self._graded:
            self._announce(self._graded.pop(self._pending.pop(0)))

    def flush(self) -> None:
        """Announce every graded turn still held (a turn that never got graded — the case
        crashed — no longer holds the later ones back)."""
        for index in self._pending:
            if index in self._graded:
                self._announce(self._graded.pop(index))
        self._pending.clear()
