"""The send rate one endpoint takes, learned from its 429s: a spacing between sends.

The window (window.py) bounds requests in flight, not requests a second: against a fast
server that allows 20 a second, even a window of 1 sends as fast as answers come back and
every other request is refused. So, once an endpoint has answered 429, its sends are paced.

The spacing is the interval at which the endpoint *answered* 2xx (while it refuses, what it
lets through is its limit) over its last `SAMPLES` answers, taken at a limit's 429 at most
once per `COOL_DOWN`; each answer narrows it by `PROBE`, so the rate creeps back up and a
raised limit is found again. A 429 that is not the limit (a random refusal with a long
`Retry-After`: `EndpointLimiter.is_limit`) does not touch the spacing, and a limit's 429
widens it only to the measured rate, not by a factor, so refusals do not compound into a
crawl. Without enough answers to measure, a 429 widens it by half, never past
`CEILING`, and that guess is replaced by the measured rate as soon as `MEASURED_AFTER` answers
allow, cool-down or not; a spacing under `FLOOR` is dropped (unpaced). Only 2xx answers are
measured: a 503 or a dropped connection did not use the endpoint's limit. Waiting sends are
let go one at a time, each `spacing` after the previous one actually left (no slot is booked
ahead, so a late wake-up never bunches two sends), retries first (window.py's `Priority`).
"""

from __future__ import annotations

import asyncio
import collections
import heapq
import itertools
import time

from holodeck_lsp.runner.limits.delivered import DeliveredRate
from holodeck_lsp.runner.limits.window import Priority

#: Answers kept for measuring (and the oldest may be at most `HORIZON` seconds old); the
#: rate is the answers of the last seconds over those seconds (`MEASURE_SPAN`); before
#: `RATE_SPAN` of answers, the interval between them (a first estimate).
SAMPLES = 1000
HORIZON = 5.0
RATE_SPAN = 1.0
#: The rate is measured over the last `MEASURE_SPAN` seconds less the time paused in them,
#: when at least `MIN_SPAN` is left.
MEASURE_SPAN = 1.0
MIN_SPAN = 0.5
#: Each answer narrows the spacing by this share, and a second by at most `PROBE_PER_SECOND`
#: of the spacing the last widening set.
PROBE = 0.02
PROBE_PER_SECOND = 0.1
#: Seconds between two widenings (the 429s of one burst are one overload) when the refused
#: send's time is not known; when it is, a send that left after the last widening, at
#: least `MIN_REMEASURE` after it (a few random 429s in a row do not compound).
COOL_DOWN = 1.0
MIN_REMEASURE = 0.25
#: Bounds of the spacing, in seconds, and the first widening without a measured rate.
FLOOR = 0.0005
CEILING = 1.0
START_SPACING = 0.01
#: The share below a window limiter's measured rate the pace starts at (`after_block`).
OVERRUN_MARGIN = 0.1
#: The most one limit 429 widens a measured spacing by (TCP's decrease, on the rate), and
#: the most when most sends were refused.
DECREASE = 0.1
MAX_WIDENING = 1.5
#: Answers that measure the rate well enough to replace a guessed spacing at once.
MEASURED_AFTER = 5
#: A gate that refused at least this many probes was a window limiter's (`after_block`);
#: the probe then holds the spacing at or over the measured limit's, less `HOLD_MARGIN`,
#: for `PLATEAU` seconds after it was measured, and narrows past it by at most
#: `PROBE_PER_SECOND` a second after that (a raised limit is found again).
WINDOW_PROBES = 3
HOLD_MARGIN = 0.04
PLATEAU = 10.0
#: A gate whose first probe waited a wait the limit named exactly, longer than this many
#: of the intervals it answered at, was a window limiter's too (`after_block`).
BUCKET_WAIT_INTERVALS = 4.0


class Pace:
    def __init__(self) -> None:
        self.spacing = 0.0
        #: When the last send was let go (its actual time, not a booked slot), and the one
        #: before it.
        self._last = self._before = float("-inf")
        self._widened_at = float("-inf")
        self._guessed = False
        self._first_answer = float("inf")
        self._anchor = 0.0  # the spacing the last widening set
        #: The spacing of the limit's measured rate, and when it was measured: the probe
        #: holds at it for `PLATEAU` (a limit that counts refusals punishes every overshoot
        #: with a shut window).
        self._floor = 0.0
        self._floor_at = float("-inf")
        self._answers: collections.deque[float] = collections.deque(maxlen=SAMPLES)
        #: The most answers the limit let through in one second (delivered.py).
        self.delivered = DeliveredRate()
        self._waiters: list[tuple[Priority, int, asyncio.Future[None]]] = []
        self._seq = itertools.count()
        self._timer: asyncio.TimerHandle | None = None

    @property
    def guessed(self) -> bool:
        """Whether the spacing is a guess or a first estimate, to be replaced by a measure."""
        return self._guessed

    @property
    def waiting(self) -> int:
        return len(self._waiters)

    async def wait_turn(self, priority: Priority | None = None) -> None:
        """Wait for this send's turn: `spacing` after the previous send was let go. Nothing
        is booked ahead: a send let go late (a busy event loop) moves the next one back
        instead of bunching two into a burst-1 limit. Retries (`priority`) go first."""
        now = time.monotonic()
        if not self._waiters and now >= self._last + self.spacing:
            self._last, self._before = now, self._last
            return
        waiter = asyncio.get_running_loop().create_future()
        entry = (priority or (1, now), next(self._seq), waiter)
        heapq.heappush(self._waiters, entry)
        self._schedule()
        try:
            await waiter
        except BaseException:
            if entry in self._waiters:
                self._waiters.remove(entry)
                heapq.heapify(self._waiters)
            raise

    def sent_now(self) -> None:
        """A send let go outside the turns (the probe gate's): the next turn counts from it."""
        self._last, self._before = time.monotonic(), self._last

    def _schedule(self) -> None:
        if self._timer is not None or not self._waiters:
            return
        delay = max(0.0, self._last + self.spacing - time.monotonic())
        self._timer = asyncio.get_running_loop().call_later(delay, self._let_go)

    def _let_go(self) -> None:
        self._timer = None
        now = time.monotonic()
        if now < self._last + self.spacing:  # the spacing widened meanwhile
            self._schedule()
            return
        while self._waiters:
            waiter = heapq.heappop(self._waiters)[2]
            if not waiter.done():
                waiter.set_result(None)
                self._last, self._before = now, self._last
                break
        self._schedule()

    def unused(self, sent_at: float) -> None:
        """The send of `sent_at` did not use the endpoint's limit (a 503, a dropped
        connection, a 429 at random): when no send has left since, its turn is given back,
        so the next one goes now instead of a whole spacing later. Else a fault rate of
        30 % idles 30 % of the limit, and the rate measured from 2xx answers falls with it."""
        if self.spacing <= 0 or self._last > sent_at:
            return
        self._last, self._before = self._before, float("-inf")
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        if self._waiters:
            self._schedule()

    def answered(self) -> None:
        """A 2xx answer: the only kind that used the endpoint's limit (a 503 or a dropped
        connection says nothing of our rate)."""
        now = time.monotonic()
        if not self._answers:
            self._first_answer = now
        self._answers.append(now)
        self.delivered.answered(now)
        if self.spacing:
            # The rate creeps up, but by at most `PROBE_PER_SECOND` of the spacing set at
            # the last widening per second since: a window limiter lets a whole window's
            # worth through at once, and 20 answers in a burst must not narrow the spacing
            # by a third (past a limit that counts refused requests, every send is refused).
            since = now - self._widened_at
            if self._guessed and self._anchor:
                # A first estimate speeds up (halves a second) until a 429 measures.
                self.spacing = min(self.spacing * (1.0 - PROBE), self._anchor * 0.5**since)
            else:
                reach = self._anchor * (1.0 - PROBE_PER_SECOND * since)
                if self._floor:
                    held = max(0.0, now - self._floor_at - PLATEAU)
                    reach = max(reach, self._floor * (1.0 - PROBE_PER_SECOND * held))
                self.spacing = max(self.spacing * (1.0 - PROBE), reach)
            if self.spacing < FLOOR:
                self.spacing = 0.0

    def known_spacing(self) -> float:
        """The spacing of the best rate the limit delivered (delivered.py), `OVERRUN_MARGIN`
        under it, or 0.0: answers are counted when they arrive, and a loaded event loop
        bunches 22 of a limit's 20 into one second; a limit that counts refusals punishes
        the overshoot with a second of refusals."""
        return self.delivered.spacing * (1.0 + OVERRUN_MARGIN)

    def _measured(self, now: float, idle: float) -> tuple[float, bool] | None:
        """Seconds per 2xx answer: the answers of the last `RATE_SPAN` over that span, gaps
        included (a window limiter, fixed or sliding, lets a burst through at the send
        rate and then refuses until its window moves on: the interval within the burst is
        the send rate, not the limit's; docs/running.md, "Long runs"). And whether that
        is only a first estimate: answers began less than `RATE_SPAN` ago (then it is
        replaced as soon as the next 429 allows, like a guess). `idle`: seconds of the
        span the endpoint was paused, which measure nothing; None when too little is left."""
        if now - self._first_answer < RATE_SPAN:
            answers = self._answers
            return (answers[-1] - answers[0]) / max(1, len(answers) - 1), True
        span = min(MEASURE_SPAN, now - self._first_answer) - idle
        if span < MIN_SPAN:
            return None
        counted = sum(1 for t in self._answers if t > now - MEASURE_SPAN)
        return span / max(1, counted), False

    def after_block(
        self, window: float, blocked_at: float, refused_probes: int, named_wait: float = 0.0
    ) -> None:
        """The probe gate (gate.py) opened after refusing `refused_probes` probes. Several
        refused, the limit is a window that let its worth through and then refused
        everything until it moved on: its rate is the answers of the `window` before the
        gate shut, and the probe holds at it (`PLATEAU`). The first probe or the second
        answered, the limit refills steadily (a token bucket): its rate is the interval
        between the answers it let through amid the refusals before the gate shut
        (docs/running.md, "Long runs") — unless the first probe waited a time the limit
        named exactly (`named_wait`) longer than `BUCKET_WAIT_INTERVALS` such intervals: a
        bucket refilling a slot each interval has one free within it, so that limit is a
        window, and its first probe went when the window had moved on (docs/benchmarks.md,
        "A window's exact wait tells it from a bucket")."""
        now = time.monotonic()
        before = [t for t in self._answers if blocked_at - window <= t <= blocked_at]
        steady = [t for t in before if t >= blocked_at - RATE_SPAN]
        # A limit that refills one slot at a time answers no two sends closer than its
        # spacing, and answers as close as that while it refuses others: the shorter
        # intervals are its own (the longer ones, our sends that came late).
        gaps = sorted(b - a for a, b in itertools.pairwise(steady))
        interval = gaps[len(gaps) // 4] if gaps else 0.0
        long_wait = interval > 0.0 and named_wait > BUCKET_WAIT_INTERVALS * interval
        windowed = refused_probes >= WINDOW_PROBES or long_wait
        if windowed:
            if not before:
                return
            limit = window / len(before)
            spacing = limit * (1.0 + OVERRUN_MARGIN)
            self._floor, self._floor_at = limit * (1.0 + HOLD_MARGIN), now
        else:
            if len(steady) < 2:
                return
            spacing = interval
        self.spacing = self._anchor = min(CEILING, max(spacing, FLOOR))
        self._widened_at = now
        self._guessed = False

    def limited(
        self, idle: float = 0.0, *, saturated: bool = False, sent_at: float | None = None
    ) -> None:
        """A 429 that is the endpoint's limit (not a random refusal: `EndpointLimiter`).
        `idle`: seconds of the last `RATE_SPAN` the endpoint was paused; `saturated`: most
        of the last second's sends were refused; `sent_at`: when the refused send left."""
        now = time.monotonic()
        recent = [t for t in self._answers if t >= now - HORIZON]
        # A guessed spacing (nothing measured yet) is replaced as soon as answers measure
        # the rate, without waiting out the cool-down: the first second of a run is where
        # the guess is furthest off and most requests are refused.
        measurable = self._guessed and len(recent) >= MEASURED_AFTER
        # The 429s of sends that left before the last widening are the same overload
        # (TCP's once per round trip); without the send's time, once per `COOL_DOWN`.
        if sent_at is not None:
            fresh = sent_at > self._widened_at and now - self._widened_at >= MIN_REMEASURE
        else:
            fresh = now - self._widened_at >= COOL_DOWN
        if self.spacing and not fresh and not measurable:
            return
        if len(recent) >= 2:
            found = self._measured(now, idle)
            if found is None:  # just out of a pause: nothing to measure the rate by yet
                return
            measured, early = found
            if not self.spacing or self._guessed:
                spacing = measured  # the first measure, or a guess replaced
            elif saturated:
                # Most sends refused: the limit let through all it could, so what it
                # answered is its rate; but a few sends' share is noisy (faults among
                # them): at most `MAX_WIDENING`× at a time.
                spacing = max(self.spacing, min(measured, self.spacing * MAX_WIDENING))
            else:
                # Refused at this spacing, so the limit's is wider; and no wider than the
                # rate answered (at most that much came through). Widen by `DECREASE`
                # (TCP's multiplicative decrease, on the rate), or to the rate answered when
                # that is closer: the rate answered alone is diluted by whatever was not
                # sent at the limit (a start, faults, a shut gate), and a second of collapse
                # measures next to nothing (the probe gate is for that).
                spacing = max(self.spacing, min(measured, self.spacing * (1.0 + DECREASE)))
            known = self.known_spacing()
            if known and not saturated:
                # (Most sends refused, the limit is overrun: a window that counts
                # refusals must empty before it delivers that rate again.)
                if self.spacing >= known:
                    # Refused at (or slower than) the best rate it delivered: the memory
                    # is stale (a fixed window's straddle, a limit lowered).
                    self.delivered.forget()
                elif spacing > known * (1.0 + DECREASE):
                    # A measure further under the rate the limit has delivered than one
                    # decrease is diluted (faults, a pause, a start): the limit allows that
                    # rate (delivered.py). A decrease near it is left as it was.
                    spacing = known
            self._guessed = early
            self._widened_at = now
        else:  # too few answers to measure: slow down by half again
            self._widened_at = now
            spacing = max(self.spacing * 1.5, START_SPACING)
            self._guessed = True
        self.spacing = self._anchor = min(CEILING, spacing)
