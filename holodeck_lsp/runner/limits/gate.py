"""One endpoint's probe gate: while its limit is overrun, one request at a time asks.

A limit overrun (most of the last second's sends refused: endpoint.py `overloaded`) used to
pause every request for the 429's `Retry-After` and then let them all go. That costs the whole
hint when the limit frees sooner (a token bucket refills in one spacing, a fixed window at its
boundary, and a `Retry-After: 1` that is always 1 says nothing of either), and a limit that
counts refused requests (a sliding window) is kept full by every request that knocks. So the
gate blocks the endpoint instead: its requests wait at the gate, and one of them at a time —
the **probe** — goes, at most one per `gap`; the first probe sent after the block began that is
answered 2xx opens the gate for all, and how many probes it refused says what the limit is
(pacing.py `after_block`: several, a window limiter that had to move on; none, a limit that
refills steadily — counted in probes, not seconds, so a loaded machine's slow wake-ups do not
change the answer). A refused probe costs one request, not 32
(docs/running.md, "Long runs").
"""

from __future__ import annotations

import asyncio
import time


class ProbeGate:
    def __init__(self) -> None:
        #: When the gate shut (None: open), and the shortest time between two probes.
        self.blocked_at: float | None = None
        self.gap = 0.0
        self._next_probe = 0.0
        self._probe_sent: float | None = None  # the probe in flight, by its send time
        self._probing = False
        self.refused_probes = 0
        self._waiters: list[asyncio.Future[None]] = []

    @property
    def blocked(self) -> bool:
        return self.blocked_at is not None

    def block(self, first_probe_in: float, gap: float) -> None:
        """Shut the gate: the first probe goes `first_probe_in` seconds from now, the next
        ones at least `gap` apart. Shutting a shut gate only moves its next probe later."""
        now = time.monotonic()
        if self.blocked_at is None:
            self.blocked_at = now
            self._probing = False
            self._probe_sent = None
            self.refused_probes = 0
        self.gap = max(gap, 0.001)
        self._next_probe = max(self._next_probe, now + first_probe_in)

    async def enter(self) -> bool:
        """Wait while the gate is shut, unless this request may be the probe (then True)."""
        while self.blocked_at is not None:
            now = time.monotonic()
            if not self._probing and now >= self._next_probe:
                self._probing = True
                self._probe_sent = None
                self._next_probe = now + self.gap
                return True
            delay = self.gap if self._probing else self._next_probe - now
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            timer = asyncio.get_running_loop().call_later(delay, _wake, waiter)
            try:
                await waiter
            finally:
                timer.cancel()
                if waiter in self._waiters:
                    self._waiters.remove(waiter)
        return False

    def sent(self, probe: bool, sent_at: float | None) -> None:
        """The probe's send time (`sent_at`), or None: it was never sent (cancelled)."""
        if not probe:
            return
        if sent_at is None:
            self._probing = False
            self._wake_all()
        else:
            self._probe_sent = sent_at

    def answered(self, sent_at: float | None, outcome: str) -> int | None:
        """A request sent at `sent_at` was answered: `ok` (2xx), `limited` / `refused` (a
        429) or `other` (a 5xx, dropped). When this answer opens the gate (a 2xx to a send
        that left after it shut), returns how many probes the limit refused meanwhile (none:
        it refilled by the first probe, a token bucket; several: a window that had to move
        on), else None."""
        if self.blocked_at is None or sent_at is None:
            return None
        if self._probing and self._probe_sent is not None and sent_at >= self._probe_sent:
            self._probing = False  # the probe's answer: the next may go at its time
            self.refused_probes += outcome in ("limited", "refused")
            self._wake_all()
        if outcome != "ok" or sent_at < self.blocked_at:
            return None
        self.blocked_at = None
        self._probing = False
        self._wake_all()
        return self.refused_probes

    def _wake_all(self) -> None:
        for waiter in self._waiters:
            _wake(waiter)


def _wake(waiter: asyncio.Future[None]) -> None:
    if not waiter.done():
        waiter.set_result(None)
