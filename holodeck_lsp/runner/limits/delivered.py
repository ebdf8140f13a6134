"""The most answers an endpoint's limit has delivered in one second: a rate the limit is
known to allow, which a re-measure of the pace (pacing.py `limited`) does not widen far past.

The pace measures the limit's rate at a 429 from the answers of the last second. Whatever
held the sends back in that second — faults, a pause for a random refusal's `reset:
1000ms`, a pause that ended just before — makes that rate too low, and the probe climbs
back by only 10 % a second (a window limiter's burst of answers must not race it ahead): a
pace four times too slow took 7 s to recover (docs/benchmarks.md, "After the pause is
lifted"). Yet a limit that answered 20 requests within one second allows 20 a second: a
token bucket and a sliding window (at most its limit in *any* window) alike. So the best
second is remembered, and a measure below it is taken for a diluted one, not for the limit.

It can overstate: a fixed window lets up to twice its limit through in a second that
straddles its boundary. A limit that refuses a send paced at or slower than the remembered
rate says the memory is stale; it is forgotten (`forget`) and learnt again from the answers
that follow (paced sends are even, so a window's straddle does not recur).
"""

from __future__ import annotations

import collections

#: The span the answers are counted over (seconds), and the fewest answers in it that
#: count as a rate (one or two answers in a second say nothing of a limit).
SPAN = 1.0
MIN_ANSWERS = 4


class DeliveredRate:
    def __init__(self, span: float = SPAN) -> None:
        self.span = span
        self.best = 0
        self._recent: collections.deque[float] = collections.deque()

    def answered(self, now: float) -> None:
        """A 2xx answer at `now` (the limit let it through)."""
        recent = self._recent
        recent.append(now)
        while recent[0] <= now - self.span:
            recent.popleft()
        self.best = max(self.best, len(recent))

    def forget(self) -> None:
        """The limit refused a send paced at or slower than the best: it is stale."""
        self.best = 0
        self._recent.clear()

    @property
    def spacing(self) -> float:
        """Seconds per answer at the best rate delivered, or 0.0 while none is known."""
        if self.best < MIN_ANSWERS:
            return 0.0
        return self.span / self.best
