"""A run's total of turns as its progress shows it (the console's `12/≤14 turns`, the editor's
`(3/≤11)`): a simulated case's conversation has no fixed length, so it is planned at its most
turns — its scripted opening turns plus `max_turns` — and, once it has finished, at the turns
it actually reported (docs/simulated-users.md "Progress while the conversation runs").

Why a bound that tightens, not a total that grows: the bar and the percentage then only move
forward, as pytest's `[ 40%]` does, the count never passes its total (`16/14`), the time left
is never too short, and at the end the total is exactly the turns run. While a bound is open
the total says so (`≤`)."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from holodeck_lsp.runner.execution.events import CaseKey, CaseRef
from holodeck_lsp.runner.selection import PlannedCase


@dataclass
class TurnTotal:
    """The planned turns; `open_bounds` is the simulated cases not finished yet."""

    total: int = 0
    open_bounds: int = 0
    _seen: dict[CaseKey, int] = field(default_factory=dict, init=False)

    @classmethod
    def of(cls, planned: Iterable[PlannedCase]) -> TurnTotal:
        cases = list(planned)
        return cls(
            total=sum(case.most_turns for case in cases),
            open_bounds=sum(case.simulated for case in cases),
        )

    def turn_finished(self, case: CaseRef) -> None:
        if case.simulated:
            self._seen[case.key] = self._seen.get(case.key, 0) + 1

    def case_finished(self, case: CaseRef) -> None:
        """A simulated case is over: its bound becomes the turns it reported."""
        if not case.simulated:
            return
        ran = self._seen.pop(case.key, 0)
        self.total = max(0, self.total - max(0, case.turns - ran))
        self.open_bounds = max(0, self.open_bounds - 1)

    def text(self, ascii_only: bool = False) -> str:
        """`14`, or `≤14` (`<=14` without Unicode) while a simulated case may still run less."""
        if not self.open_bounds:
            return str(self.total)
        return f"{'<=' if ascii_only else '≤'}{self.total}"


def case_turns_text(case: CaseRef, ascii_only: bool = False) -> str:
    """One case's planned turns: `3`, or `≤11` for a simulated case (it may stop sooner)."""
    if not case.simulated:
        return str(case.turns)
    return f"{'<=' if ascii_only else '≤'}{case.turns}"
