"""The send rate one endpoint takes, learned from its 429s: a spacing between sends.

The window (window.py) bounds requests in flight, not requests a second: against a fast
server that allows 20 a second, even a window of 1 sends as fast as answers come back and
every other request is refused. So, once an endpoint has answered 429, its sends are paced.

The spacing is the interval at which the endpoint *answered* (anything but a 429: while it
refuses, what it lets through is its limit) over its last `SAMPLES` answers, taken at a 429
at most once per `COOL_DOWN`; each answer narrows it by `PROBE`, so the rate creeps back up
and a raised limit is found again. A 429 that is not a limit (a provider's random refusal)
widens the spacing only to the measured rate, not by a factor, so refusals at random do not
compound into a crawl. Without enough answers to measure, a 429 widens it by half, never past
`CEILING`, and that guess is replaced by the measured rate as soon as `MEASURED_AFTER` answers
allow, cool-down or not; a spacing under `FLOOR` is dropped (unpaced). Sends take their
slots in order, so 64 waiting requests leave one by one, not in a burst.
"""

from __future__ import annotations

import asyncio
import collections
import time

#: Answers the rate is measured over (and the oldest may be at most `HORIZON` seconds old).
SAMPLES = 20
HORIZON = 5.0
#: Each answer narrows the spacing by this share.
PROBE = 0.01
#: Seconds between two widenings (the 429s of one burst are one overload).
COOL_DOWN = 1.0
#: Bounds of the spacing, in seconds, and the first widening without a measured rate.
FLOOR = 0.0005
CEILING = 1.0
START_SPACING = 0.01
#: Answers that measure the rate well enough to replace a guessed spacing at once.
MEASURED_AFTER = 5


class Pace:
    def __init__(self) -> None:
        self.spacing = 0.0
        self._next = 0.0
        self._widened_at = float("-inf")
        self._guessed = False
        self._answers: collections.deque[float] = collections.deque(maxlen=SAMPLES)

    async def wait_turn(self) -> None:
        """Wait for this send's slot (none while unpaced)."""
        if self.spacing <= 0:
            return
        now = time.monotonic()
        slot = max(now, self._next)
        self._next = slot + self.spacing
        if slot > now:
            await asyncio.sleep(slot - now)

    def answered(self) -> None:
        """Any answer but a 429 (a 503 or a dropped connection says nothing of our rate)."""
        self._answers.append(time.monotonic())
        if self.spacing:
            self.spacing *= 1.0 - PROBE
            if self.spacing < FLOOR:
                self.spacing = 0.0

    def limited(self) -> None:
        now = time.monotonic()
        recent = [t for t in self._answers if t >= now - HORIZON]
        # A guessed spacing (nothing measured yet) is replaced as soon as answers measure
        # the rate, without waiting out the cool-down: the first second of a run is where
        # the guess is furthest off and most requests are refused.
        measurable = self._guessed and len(recent) >= MEASURED_AFTER
        if self.spacing and now - self._widened_at < COOL_DOWN and not measurable:
            return
        self._widened_at = now
        if len(recent) >= 2:
            measured = (recent[-1] - recent[0]) / (len(recent) - 1)  # seconds per answer
            spacing = max(self.spacing, measured)
            self._guessed = False
        else:  # too few answers to measure: slow down by half again
            spacing = max(self.spacing * 1.5, START_SPACING)
            self._guessed = True
        self.spacing = min(CEILING, spacing)
