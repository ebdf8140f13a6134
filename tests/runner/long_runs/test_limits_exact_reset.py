"""runner/limits/ honours a limit's exact reset for the sends already waiting their turn
(issue 36, docs/benchmarks.md "Sends held for an exact reset"): a 429 saying the limit is
used up until a reset named in milliseconds (`x-ratelimit-reset-requests: 600ms`) holds
every send of the endpoint until then, those already past the pause and waiting for the
pace too; a whole-second reset (`1000ms`, which says when at the latest) does not hold
them, since their answers are what lifts such a pause."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from holodeck_lsp.runner.limits.backoff import coarse_hint
from holodeck_lsp.runner.limits.endpoint import EndpointLimiter
from holodeck_lsp.runner.limits.headers import duration
from tests.fakes.limiter_shapes import LimiterShape, refusal_headers
from tests.runner.long_runs.limiter_drive import send_all

#: Wide enough that a loaded machine's late wake-ups do not let the second send go first.
SPACING = 0.3


async def _paced_pair(limiter: EndpointLimiter) -> tuple[float, asyncio.Future[float]]:
    """A first send, and a second one waiting its turn (`SPACING` after the first)."""
    limiter.pace.spacing = SPACING
    first = await limiter.acquire()
    waiting = asyncio.ensure_future(limiter.acquire())
    await asyncio.sleep(0.01)
    assert not waiting.done()  # it waits for the pace, past the pause's check
    return first, waiting


async def test_a_send_waiting_its_turn_waits_out_an_exact_reset() -> None:
    limiter = EndpointLimiter("k")
    first, waiting = await _paced_pair(limiter)
    # The first is refused: the limit is used up, its next slot 0.6 s away.
    limiter.release("limited", first, pause=0.6)
    sent = await asyncio.wait_for(waiting, 2)
    # Before: it left at its turn (0.3 s), into a full window that counted it.
    assert sent - first >= 0.6


async def test_a_whole_second_reset_does_not_hold_it_nor_the_rest_of_one() -> None:
    limiter = EndpointLimiter("k")
    first, waiting = await _paced_pair(limiter)
    limiter.release("limited", first, pause=1.0)  # `reset: 1000ms`: at the latest
    sent = await asyncio.wait_for(waiting, 2)
    assert sent - first < 0.8  # its turn came: its answer may lift the pause
    limiter.release("ok", sent)
    limiter = EndpointLimiter("k")
    first, waiting = await _paced_pair(limiter)
    limiter.release("limited", first, pause=1.0)  # a random refusal's whole second
    limiter.release("limited", first, pause=0.45)  # and the limit's exact reset
    sent = await asyncio.wait_for(waiting, 2)
    # Held for the exact reset only, not for the whole second's rest.
    assert 0.45 <= sent - first < 0.9


class SlidingWindowServer:
    """tests/fakes/limiter_shapes.py's sliding window (refusals count too), answering with
    `x-ratelimit-reset-requests`; it counts the sends that arrived before a reset it had
    named exactly (not in whole seconds)."""

    def __init__(self) -> None:
        self.limit = LimiterShape("sliding", limit=20, window=1.0)
        self.requests = self.refused = self.before_reset = 0
        self._reset_at = float("-inf")

    async def attempt(self, request: object) -> httpx.Response:
        now = time.monotonic()
        self.requests += 1
        self.before_reset += now < self._reset_at
        wait = self.limit.admit(now)
        if wait is None:
            return httpx.Response(200)
        self.refused += 1
        headers = refusal_headers("reset", wait)
        named = duration(headers["x-ratelimit-reset-requests"])  # in whole milliseconds
        assert named is not None
        if not coarse_hint(named):  # `1000ms` says when at the latest (backoff.py)
            self._reset_at = max(self._reset_at, now + named)
        return httpx.Response(429, headers=headers)


@pytest.mark.slow
async def test_no_send_reaches_a_window_before_the_reset_it_named() -> None:
    """80 requests, 32 at a time, against a sliding window of 20 a second that counts
    refusals and names its reset exactly. Before, the sends already waiting their turn went
    on after a reset was named (21-37 of them here), each refused and counted."""
    server = SlidingWindowServer()
    limiter = EndpointLimiter("k")
    await send_all(limiter, server.attempt)
    assert server.refused > 0  # the window was reached
    assert server.before_reset == 0, (server.before_reset, server.refused, server.requests)
