"""The adaptive number of requests in flight to one endpoint: slow start, then additive
increase and multiplicative decrease (AIMD, as TCP's congestion window).

The window starts small (`START`) and, until the first 429, grows by one per answered request
(it doubles every round trip: an endpoint without limits is soon used at full `parallel`).
After a 429 it narrows to `DECREASE`× and from then on grows by 1/window per answer (about
+1 per window's worth of answers). A 429 narrows the window only if its request was sent
after the last narrowing: the 429s of requests sent together report one overload, not many
(TCP's once-per-round-trip rule). The window stays within 1..ceiling (`max_in_flight`).
Requests wait for room in the order of their `Priority` (pacing.py): a retry before any first
attempt, and among retries the request that first asked earliest, so a refused request does
not rejoin the back of a long queue and the run's last cases do not trail.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time

#: Waiters' order: (0, first asked) for a retry, (1, arrival) for a first attempt.
Priority = tuple[int, float]

START = 4
DECREASE = 0.5


class Window:
    def __init__(self, ceiling: int, start: int = START) -> None:
        self.ceiling = max(1, ceiling)
        self.size = float(max(1, min(self.ceiling, start)))
        self.in_flight = 0
        self.slow_start = True
        self._waiters: list[tuple[Priority, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._decreased_at = float("-inf")

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def acquire(self, priority: Priority | None = None) -> float:
        """Wait for room; returns when the request may be sent (its send time). `priority`:
        a retry's `(0, first asked)`; a first attempt (None) waits behind every retry."""
        if self.in_flight < int(self.size) and not self._waiters:
            self.in_flight += 1
            return time.monotonic()
        waiter = asyncio.get_running_loop().create_future()
        entry = (priority or (1, time.monotonic()), next(self._seq), waiter)
        heapq.heappush(self._waiters, entry)
        try:
            await waiter
        except BaseException:
            if waiter.done() and not waiter.cancelled():
                self.give_back()  # it was handed a slot it will not use
            elif entry in self._waiters:
                self._waiters.remove(entry)
                heapq.heapify(self._waiters)
            raise
        return time.monotonic()

    def release(self, outcome: str, sent_at: float | None = None) -> None:
        """`ok` (answered), `limited` (429) or `other` (a 5xx or a dropped connection: says
        nothing about our rate). `sent_at`: what `acquire` returned for this request."""
        if outcome == "ok":
            step = 1.0 if self.slow_start else 1.0 / self.size
            self.size = min(float(self.ceiling), self.size + step)
        elif outcome == "limited":
            self.slow_start = False
            sent = time.monotonic() if sent_at is None else sent_at
            if sent > self._decreased_at:
                self._decreased_at = time.monotonic()
                self.size = max(1.0, self.size * DECREASE)
        self.give_back()

    def give_back(self) -> None:
        """A slot returned unused (its request was never sent)."""
        self.in_flight -= 1
        while self._waiters and self.in_flight < int(self.size):
            waiter = heapq.heappop(self._waiters)[2]
            if not waiter.done():
                self.in_flight += 1
                waiter.set_result(None)
