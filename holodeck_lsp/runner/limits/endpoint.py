"""One endpoint's limiter: the AIMD window, the explicit buckets, a pause the provider asked
for, and the counts progress shows (waiting on a rate limit, 429s seen, retries)."""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass

from holodeck_lsp.runner.limits.bucket import Bucket
from holodeck_lsp.runner.limits.pacing import Pace
from holodeck_lsp.runner.limits.window import Window


@dataclass(frozen=True, slots=True)
class EndpointLimits:
    """Explicit limits of one provider/model (`holodeck-lsp.yaml` `limits:`)."""

    rpm: float | None = None
    tpm: float | None = None
    max_in_flight: int | None = None


#: The window's ceiling when `max_in_flight` is not set.
DEFAULT_MAX_IN_FLIGHT = 32


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
        self._paused_until = 0.0

    async def acquire(self) -> float:
        """Wait for room: a pause the provider asked for, the buckets, the window. Returns
        the request's send time (give it back to `release`)."""
        self.counts.waiting += 1
        try:
            while (pause := self._paused_until - time.monotonic()) > 0:
                await asyncio.sleep(pause)
            if self.requests is not None:
                await self.requests.take()
            if self.tokens is not None:
                await self.tokens.take(0)  # waits while the bucket is in debt
            # The pace before the window: a paced slot is kept while an answer is awaited,
            # so the time to answer does not add to the spacing (a window of 1 still sends
            # at the paced rate when answers come faster than the spacing).
            await self.pace.wait_turn()
            sent_at = await self.window.acquire()
        finally:
            self.counts.waiting -= 1
        self.counts.requests += 1
        return sent_at

    def release(
        self,
        outcome: str,
        sent_at: float | None = None,
        *,
        tokens: int = 0,
        pause: float | None = None,
    ) -> None:
        """After the answer: `ok`, `limited` (429) or `other`; `tokens` the answer used;
        `pause` seconds the provider asked every request to wait (a 429's `Retry-After`, a
        limit used up): the endpoint's requests wait that long before they are sent."""
        if outcome == "limited":
            self.counts.limited += 1
            self.pace.limited()
        else:
            self.pace.answered()
        if tokens and self.tokens is not None:
            self.tokens.charge(tokens)
        if pause:
            self.pause(pause)
        self.window.release(outcome, sent_at)

    def pause(self, seconds: float) -> None:
        """The endpoint's requests wait `seconds` from now before they are sent."""
        self._paused_until = max(self._paused_until, time.monotonic() + seconds)
