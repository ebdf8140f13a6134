"""The send rate one endpoint takes, learned from its 429s: a spacing between sends.

The window (window.py) bounds requests in flight, not requests a second: against a fast
server that allows 20 a second, even a window of 1 sends as fast as answers come back and
every other request is refused. So, once an endpoint has answered 429, its sends are paced:
the spacing becomes one over the rate the endpoint *did* answer in the last second (while it
refuses, what it lets through is its limit), 5 % slower, and at most once per `COOL_DOWN`
a 429 widens it further (without a measured rate, by half; never past `CEILING`). Each success narrows it by `PROBE` (the rate creeps back up, so a
limit that was raised is found again); a spacing under `FLOOR` is dropped (unpaced).
Sends take their slots in order, so 64 waiting requests leave one by one, not in a burst.
"""

from __future__ import annotations

import asyncio
import collections
import time

#: Seconds of successes the rate is measured over.
WINDOW_SECONDS = 1.0
#: How much slower than the measured rate a 429 makes the pace.
MARGIN = 1.05
#: A success narrows the spacing by this share.
PROBE = 0.01
#: Seconds between two widenings (the 429s of one burst are one overload).
COOL_DOWN = 0.5
#: Below this spacing (seconds) sends are not paced at all; above `CEILING` never paced
#: slower (a provider that answers nothing for long is the retry budget's to give up on).
FLOOR = 0.0005
CEILING = 1.0
#: The first widening without a measured rate.
START_SPACING = 0.01


class Pace:
    def __init__(self) -> None:
        self.spacing = 0.0
        self._next = 0.0
        self._widened_at = float("-inf")
        self._successes: collections.deque[float] = collections.deque()

    async def wait_turn(self) -> None:
        """Wait for this send's slot (none while unpaced)."""
        if self.spacing <= 0:
            return
        now = time.monotonic()
        slot = max(now, self._next)
        self._next = slot + self.spacing
        if slot > now:
            await asyncio.sleep(slot - now)

    def succeeded(self) -> None:
        now = time.monotonic()
        self._successes.append(now)
        while self._successes and self._successes[0] < now - WINDOW_SECONDS:
            self._successes.popleft()
        if self.spacing:
            self.spacing *= 1.0 - PROBE
            if self.spacing < FLOOR:
                self.spacing = 0.0

    def limited(self) -> None:
        now = time.monotonic()
        if now - self._widened_at < COOL_DOWN and self.spacing:
            return
        self._widened_at = now
        recent = [t for t in self._successes if t >= now - WINDOW_SECONDS]
        if len(recent) >= 2:
            span = max(now - recent[0], 1e-3)
            measured = span / len(recent)  # seconds per answered request
            spacing = max(self.spacing, measured) * MARGIN
        else:  # too few answers to measure: slow down by half again
            spacing = max(self.spacing * 1.5, START_SPACING)
        self.spacing = min(CEILING, spacing)
