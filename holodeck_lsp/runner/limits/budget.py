"""The retry budget of one turn: every HTTP request the turn makes (an agent's tool loop
makes several) draws its retries from one count, so a turn cannot retry for ever.

A backend's session sets the budget around `send` (`turn_budget`); a request made outside a
turn (a judge's) gets a budget of its own per request.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from contextvars import ContextVar
from dataclasses import dataclass

#: Retries a turn may make when nothing else is configured (`--retry-budget`, `limits:`).
DEFAULT_RETRY_BUDGET = 8


@dataclass(slots=True)
class RetryBudget:
    remaining: int

    def take(self) -> bool:
        """One retry, if any is left."""
        if self.remaining <= 0:
            return False
        self.remaining -= 1
        return True


_current: ContextVar[RetryBudget | None] = ContextVar("holodeck_retry_budget", default=None)


@contextlib.contextmanager
def turn_budget(retries: int) -> Iterator[RetryBudget]:
    """Within the block (and tasks it starts), requests share `retries` retries."""
    with drawing_on(RetryBudget(retries)) as budget:
        yield budget


@contextlib.contextmanager
def drawing_on(budget: RetryBudget) -> Iterator[RetryBudget]:
    """Within the block, requests draw on `budget`, a turn's budget kept elsewhere (the
    Claude relay's requests come from another process, not from the turn's task)."""
    token = _current.set(budget)
    try:
        yield budget
    finally:
        _current.reset(token)


def current_budget(default: int) -> RetryBudget:
    """The turn's budget, or a fresh one of `default` retries for a lone request."""
    budget = _current.get()
    return budget if budget is not None else RetryBudget(default)
