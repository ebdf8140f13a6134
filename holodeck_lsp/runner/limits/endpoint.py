"""One endpoint's limiter: the AIMD window, the explicit buckets, a pause the provider asked
for, and the counts progress shows (waiting on a rate limit, 429s seen, retries)."""

from __future__ import annotations

import asyncio
import collections
import time
from dataclasses import dataclass

from holodeck_lsp.runner.limits import trace
from holodeck_lsp.runner.limits.backoff import coarse_hint
from holodeck_lsp.runner.limits.bucket import Bucket
from holodeck_lsp.runner.limits.gate import ProbeGate
from holodeck_lsp.runner.limits.pacing import MEASURE_SPAN, Pace
from holodeck_lsp.runner.limits.window import Priority, Window


@dataclass(frozen=True, slots=True)
class EndpointLimits:
    """Explicit limits of one provider/model (`holodeck-lsp.yaml` `limits:`)."""

    rpm: float | None = None
    tpm: float | None = None
    max_in_flight: int | None = None


#: The window's ceiling when `max_in_flight` is not set.
DEFAULT_MAX_IN_FLIGHT = 32
#: A 429 asking at most this many spacings (or `LIMIT_HINT_FLOOR` seconds) is the limit's.
LIMIT_HINT_SPACINGS = 4.0
LIMIT_HINT_FLOOR = 0.2
#: A 429 with a long wait is the limit's when at least this share of the sends of the last
#: `SHARE_SECONDS` (and at least `SHARE_MIN_SENDS` of them) were answered 429: random
#: refusals (a provider's edge) are rarer.
LIMIT_REFUSED_SHARE = 0.25
SHARE_SECONDS = 1.0
SHARE_MIN_SENDS = 8
#: The share of refused sends that says the limit is overrun (`overloaded`).
OVERRUN_SHARE = 0.4
#: An endpoint that answered 2xx within this many seconds is answering.
ANSWERING_SECONDS = 5.0
#: The window an overrun limit is measured over when its 429 names a shorter wait or none
#: (a limit of so many requests a second), and the probes sent per window while the gate is
#: shut (gate.py).
DEFAULT_WINDOW = 1.0
PROBES_PER_WINDOW = 8


@dataclass(slots=True)
class EndpointCounts:
    requests: int = 0
    limited: int = 0  # answered 429
    retries: int = 0
    #: Requests waiting right now for room (window, bucket or pause).
    waiting: int = 0


class EndpointLimiter:
    def __init__(self, key: str, limits: EndpointLimits | None = None) -> None:
        limits = limits or EndpointLimits()
        self.key = key
        self.window = Window(limits.max_in_flight or DEFAULT_MAX_IN_FLIGHT)
        self.requests = Bucket(limits.rpm) if limits.rpm else None
        self.tokens = Bucket(limits.tpm) if limits.tpm else None
        self.counts = EndpointCounts()
        self.pace = Pace()
        self.gate = ProbeGate()
        self._block_window = DEFAULT_WINDOW
        #: The wait the limit named exactly when the gate last shut (0.0: none named).
        self._block_named_wait = 0.0
        self._paused_until = 0.0
        self._paused_at = float("-inf")
        #: The end of the pauses that named their time exactly (not in whole seconds).
        self._exact_until = 0.0
        self._answered_at = float("-inf")
        #: (answered at, answered 429) of the last `SHARE_SECONDS`' sends.
        self._outcomes: collections.deque[tuple[float, bool]] = collections.deque()

    def is_limit(self, hint: float | None, used_up: bool) -> bool:
        """Whether a 429 is this endpoint's rate limit (pace by it) or a refusal at random
        (retry it, leave the pace alone): a limit says it is used up
        (`x-ratelimit-remaining-*: 0`), or asks a wait about the spacing between sends (the
        time to the next free slot), or comes while nothing has been answered for as long
        as it asks; the first 429s, before any pacing, start the pacing."""
        if used_up or hint is None or self.pace.spacing <= 0 or self.paced_refusal(hint):
            return True
        if self.refused_share() >= LIMIT_REFUSED_SHARE:
            # A limit that asks a fixed long wait whatever its state (`Retry-After: 1`):
            # too many of the last second's sends refused to be chance.
            return True
        return time.monotonic() - self._answered_at > hint

    def refused_share(self) -> float:
        """The share of the last `SHARE_SECONDS`' sends answered 429."""
        now = time.monotonic()
        recent = self._outcomes
        while recent and recent[0][0] < now - SHARE_SECONDS:
            recent.popleft()
        if len(recent) < SHARE_MIN_SENDS:
            return 0.0
        return sum(1 for _, refused in recent if refused) / len(recent)

    def lone_refusal(self) -> bool:
        """Whether the last second's sends (enough of them to tell) were mostly answered."""
        return len(self._outcomes) >= SHARE_MIN_SENDS and (
            self.refused_share() < LIMIT_REFUSED_SHARE
        )

    def paced_refusal(self, hint: float | None) -> bool:
        """A 429 asking a wait about the pace's spacing: the next free slot of the limit."""
        if hint is None:
            return False
        return hint <= max(LIMIT_HINT_SPACINGS * self.pace.spacing, LIMIT_HINT_FLOOR)

    def answering(self) -> bool:
        """Whether the endpoint answered 2xx lately (its failures are then passing ones)."""
        return time.monotonic() - self._answered_at < ANSWERING_SECONDS

    async def acquire(self, priority: Priority | None = None) -> float:
        """Wait for room: a pause the provider asked for, the buckets, the window, the pace.
        Returns the request's send time (give it back to `release`). `priority`: a retry's
        `(0, when its request first asked)`, served before first attempts."""
        self.counts.waiting += 1
        try:
            held = False  # turned back by a limit's exact pause while waiting its turn
            while True:
                until = self._exact_until if held else self._paused_until
                while (pause := until - time.monotonic()) > 0:
                    await asyncio.sleep(pause)
                    until = self._exact_until if held else self._paused_until
                if self.requests is not None:
                    await self.requests.take()
                if self.tokens is not None:
                    await self.tokens.take(0)  # waits while the bucket is in debt
                probe = await self.gate.enter()
                try:
                    sent_at = await self._window_and_pace(priority, paced=not probe)
                except BaseException:
                    self.gate.sent(probe, None)
                    raise
                if self.gate.blocked and not probe:
                    # The gate shut while this send waited its turn (gate.py): only the
                    # probe goes; this one's turn and slot are given back, and it waits.
                    self.pace.unused(sent_at)
                    self.window.give_back()
                    continue
                if self._exact_until > time.monotonic():
                    # The limit named its reset exactly while this send waited its turn:
                    # sent now, it would be refused — and a window that counts refusals
                    # would be kept full by it. It waits out that reset (not a whole-second
                    # pause's rest: such a pause is lifted by the answers of sends like
                    # this one, `_unpause`), then takes its turn again.
                    self.gate.sent(probe, None)
                    self.pace.unused(sent_at)
                    self.window.give_back()
                    held = True
                    trace.note("pause.held_send")
                    continue
                self.gate.sent(probe, sent_at)
                break
        finally:
            self.counts.waiting -= 1
        self.counts.requests += 1
        return sent_at

    async def _window_and_pace(self, priority: Priority | None, *, paced: bool) -> float:
        # The window before the pace: the pace lets a send go at the time it is sent, so
        # it must not wait for the window after its turn (two would then leave together
        # into a burst-1 limit). The spacing counts from the previous send, not its
        # answer, so the time to answer does not add to it. A probe (gate.py) keeps the
        # gate's time, not the pace's: the pace is for after the gate opens.
        windowed = time.monotonic()
        await self.window.acquire(priority)
        paced_at = time.monotonic()
        try:
            if paced:
                await self.pace.wait_turn(priority)
            else:
                self.pace.sent_now()
        except BaseException:
            self.window.give_back()
            raise
        sent_at = time.monotonic()
        if trace.enabled():
            trace.note("wait.window", paced_at - windowed)
            trace.note("wait.pace", sent_at - paced_at)
        return sent_at

    def release(
        self,
        outcome: str,
        sent_at: float | None = None,
        *,
        tokens: int = 0,
        pause: float | None = None,
    ) -> None:
        """After the answer: `ok` (2xx), `limited` (the limit's 429, `is_limit`), `refused`
        (a 429 at random) or `other` (5xx, dropped); `tokens` the answer used; `pause`
        seconds the provider asked every request to wait (a limit used up until its reset):
        the endpoint's requests wait that long before they are sent.

        Once paced, a 429 no longer narrows the window: the pace governs the rate, and a
        narrowed window would only leave the limit's slots unused."""
        if outcome in ("limited", "refused"):
            self.counts.limited += 1
        if outcome != "other":
            self._outcomes.append((time.monotonic(), outcome != "ok"))
        window_outcome = "other" if outcome == "refused" else outcome
        if outcome == "limited":
            paced = self.pace.spacing > 0
            before = self.pace.spacing
            pace = self.pace
            remeasure = pace.guessed or self.refused_share() >= LIMIT_REFUSED_SHARE
            if pace.spacing <= 0 or (remeasure and not self.gate.blocked):
                # A few 429s among many answers are a slight overrun or chance: slowing
                # to the rate answered each time would compound (faults lower it).
                self.pace.limited(
                    idle=self._paused_within(MEASURE_SPAN),
                    saturated=self.refused_share() >= OVERRUN_SHARE,
                    sent_at=sent_at,
                )
            if paced:
                window_outcome = "other"  # the window keeps its size
            if trace.enabled():
                trace.note("pace.spacing_after_429", self.pace.spacing)
                if self.pace.spacing != before:
                    trace.note("pace.reanchored", self.pace.spacing)
        elif outcome == "refused":
            trace.note("refused.random_429")
        blocked_at = self.gate.blocked_at
        refused_probes = self.gate.answered(sent_at, outcome)
        if refused_probes is not None and blocked_at is not None:
            # The gate opened: the limit answers again. What it let through before it shut
            # and how many probes it refused say its shape and rate; the refusals of the
            # shut time say nothing of the pace from now on.
            self.pace.after_block(
                self._block_window, blocked_at, refused_probes, self._block_named_wait
            )
            self._outcomes.clear()
            # The shut time measures no rate (`_paused_within`), as a pause.
            self._paused_at = blocked_at
            self._paused_until = max(self._paused_until, time.monotonic())
            trace.note("gate.shut_for", time.monotonic() - blocked_at)
            trace.note("gate.refused_probes", refused_probes)
        lone = outcome == "limited" and self.lone_refusal()
        if (outcome in ("other", "refused") or lone) and sent_at is not None:
            # A fault used no slot of the limit; nor, most likely, did a lone 429 among
            # answers (an edge's refusal, or one send early by a hair): its turn is given
            # back. Were the limit reached, the next is refused too and the share rises.
            self.pace.unused(sent_at)
        elif outcome == "ok":
            self._answered_at = time.monotonic()
            if sent_at is not None and sent_at > self._paused_at:
                self._unpause(sent_at)
            self.pace.answered()
            if self.pace.spacing > 0:
                # Paced, the window only bounds requests in flight (those waiting for their
                # turn included): it grows back as in slow start, so it never holds the
                # pace's sends back (a narrow window under a slow event loop idled the limit).
                self.window.slow_start = True
        if tokens and self.tokens is not None:
            self.tokens.charge(tokens)
        if pause:
            self.pause(pause)
        size = self.window.size
        self.window.release(window_outcome, sent_at)
        if trace.enabled() and self.window.size < size:
            trace.note("window.shrunk", self.window.size)

    def pause(self, seconds: float) -> None:
        """The endpoint's requests wait `seconds` from now before they are sent."""
        now = time.monotonic()
        self._paused_at = now
        self._paused_until = max(self._paused_until, now + seconds)
        if not coarse_hint(seconds):
            self._exact_until = max(self._exact_until, now + seconds)

    def _unpause(self, sent_at: float) -> None:
        """A send that left after the last pause began was answered 2xx before the pause
        ended: a wait of whole seconds (`x-ratelimit-reset-requests: 1000ms`, backoff.py
        `coarse_hint`) said when at the latest, not when, and the limit had a slot before
        it; so the endpoint's requests go again at once (a reset named exactly is kept).
        Left whole, such a pause at the start of a run (a random refusal saying `remaining:
        0`) idled the endpoint for its second, and the answers of that second measured a
        pace four times too slow (docs/benchmarks.md, "After the pause is lifted")."""
        now = time.monotonic()
        until = max(now, self._exact_until)
        if until < self._paused_until:
            trace.note("pause.lifted", self._paused_until - until)
            self._paused_until = until

    def _paused_within(self, seconds: float) -> float:
        """Seconds of the last `seconds` the endpoint was paused (nothing could be sent)."""
        now = time.monotonic()
        start = max(self._paused_at, now - seconds)
        return max(0.0, min(self._paused_until, now) - start)

    def overrun(self, hint: float | None, coarse: bool) -> None:
        """A limit overrun (`overloaded`): shut the probe gate (gate.py): one request at a
        time asks, `PROBES_PER_WINDOW` a window (the 429's wait, at least `DEFAULT_WINDOW`),
        the first one gap later — or, when the hint is exact (not a whole number of seconds:
        backoff.py `coarse_hint`), at the time it names. When the gate opens, the pace is
        set from what the limit let through in the window before (pacing.py
        `after_block`); the pace meanwhile is left as it was, so that the sends already
        waiting their turn reach the gate at once and one of them probes."""
        window = max(hint or 0.0, DEFAULT_WINDOW)
        gap = window / PROBES_PER_WINDOW
        first = hint if hint is not None and not coarse else gap
        self._block_window = window
        if not self.gate.blocked:
            self._block_named_wait = hint if hint is not None and not coarse else 0.0
        self.gate.block(first, gap)
        self._paused_at = time.monotonic()

    def overloaded(self, sent_at: float) -> bool:
        """Whether a limit's 429 says the limit is overrun, not just reached: a good share of
        the last second's sends refused, by a send that left after the last block or pause
        began (the 429s of sends that left together report one overrun), while the gate is
        open (a refused probe is the same overrun). A window limiter that counts refused
        requests stays full while they keep coming: the endpoint then sends one probe at a
        time until the limit answers (gate.py), then at the measured pace."""
        if self.gate.blocked or sent_at <= self._paused_at:
            return False
        return self.refused_share() >= OVERRUN_SHARE
