"""The totals an editor run's progress reports carry after the turn it reports: the same
figures as the terminal's totals line (commands/console/totals_bar.py) — cases in flight,
errored turns, requests waiting on a rate limit, rate, time left, tokens and cost so far.

A short run (the usual click on a case) has no use for a rate: in flight, rate and ETA are
added for a run of `LONG_RUN_TURNS` turns or more; errored and waiting only when not zero;
tokens and cost once the backend reported tokens.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from holodeck_lsp.runner.limits import registry

if TYPE_CHECKING:  # the report schema (pydantic) loads with the first run, not at start-up
    from holodeck_lsp.schema.results import TurnResult

#: Planned turns from which a run's reports carry in flight, rate and time left.
LONG_RUN_TURNS = 20


def _waiting() -> int:
    return registry.totals().waiting


@dataclass
class RunTotals:
    total_turns: int = 0
    clock: Callable[[], float] = time.monotonic
    waiting: Callable[[], int] = _waiting
    started: float = field(default=0.0)
    running: int = 0
    turns: int = 0
    errored: int = 0
    tokens: int = 0
    cost: float = 0.0
    unpriced: bool = False

    def __post_init__(self) -> None:
        self.started = self.clock()

    def case_started(self) -> None:
        self.running += 1

    def case_finished(self) -> None:
        self.running = max(0, self.running - 1)

    def turn_finished(self, turn: TurnResult) -> None:
        self.turns += 1
        self.errored += int(turn.errored)
        if turn.token_usage is not None:
            self.tokens += turn.token_usage.total_tokens
            if turn.cost_usd is None:
                self.unpriced = True
            else:
                self.cost += turn.cost_usd

    def parts(self) -> list[str]:
        elapsed = self.clock() - self.started
        parts: list[str] = []
        if self.total_turns >= LONG_RUN_TURNS:
            per_minute = self.turns / elapsed * 60 if elapsed > 0 else 0.0
            left = self.total_turns - self.turns
            eta = 0.0 if left <= 0 else left / (per_minute / 60) if per_minute else None
            parts.append(f"{self.running} running")
            parts.append(f"{per_minute:.0f} turns/min")
            parts.append(f"ETA {_duration(eta)}" if eta is not None else "ETA ?")
        if self.errored:
            parts.append(f"{self.errored} errored")
        waiting = self.waiting()
        if waiting:
            parts.append(f"{waiting} waiting on rate limit")
        if self.tokens:
            parts.append(f"{self.tokens:,} tokens")
            from holodeck_lsp.reports.run.view import usd

            parts.append("cost n/a" if self.unpriced else usd(self.cost))
        return parts


def _duration(seconds: float) -> str:
    whole = int(seconds + 0.5)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    return f"{minutes}m{secs:02d}s" if minutes < 60 else f"{minutes // 60}h{minutes % 60:02d}m"
