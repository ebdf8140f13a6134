"""runner/limits/transport.py: a limit that never answers — bare 429s, every one of them,
as the judge of tests/runner/long_runs/test_errored_judges.py gives — is retried free of the
turn's budget for `LIMIT_ALLOWANCE_SECONDS` only (docs/running.md, "Long runs"); then its
retries draw on the budget, and once that is spent the provider's own 429 is handed back:
the request ends, it never waits on the limit for ever.

In-process against the real `Retrying` and `EndpointLimiter` (the limiter's gate and pace
wait in real time), with the allowance shortened: the end-to-end judge test once waited the
whole 10 s allowance in a child process to show this; the path taken is the same with a
shorter allowance, since the allowance is only ever compared with the time spent."""

from __future__ import annotations

import asyncio
import time

import httpx
import pytest

from holodeck_lsp.runner.limits import transport
from holodeck_lsp.runner.limits.budget import turn_budget
from holodeck_lsp.runner.limits.endpoint import EndpointLimiter
from holodeck_lsp.runner.limits.transport import Retrying

#: Seconds of free retries: long enough for several of the limit's refusals to be retried
#: within it (each backoff is cut to `NAP` below), short for a test.
ALLOWANCE = 0.6
NAP = 0.05


async def test_a_limit_that_never_answers_costs_the_allowance_then_the_budget(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(transport, "LIMIT_ALLOWANCE_SECONDS", ALLOWANCE)
    sent: list[float] = []

    async def refuse(request: object) -> httpx.Response:
        sent.append(time.monotonic())
        return httpx.Response(429)  # no Retry-After, no x-ratelimit-* headers: bare

    async def nap(seconds: float) -> None:
        # The backoff's length is not what this test is about (test_limits_retry_order.py
        # checks it); time must still pass, since the allowance counts the time spent.
        await asyncio.sleep(min(seconds, NAP))

    retrying = Retrying(EndpointLimiter("k"), 1, (httpx.TransportError,))
    retrying._sleep = nap
    started = time.monotonic()
    with turn_budget(1) as budget:
        # Bounded: were the allowance never spent, the retries would go on for ever.
        response = await asyncio.wait_for(retrying.send(refuse, None), timeout=60)
    took = time.monotonic() - started
    assert response.status_code == 429  # the provider's own refusal, for the caller to report
    assert budget.remaining == 0  # the turn's one retry was spent too
    # More sends than the first attempt and the budget's one retry: the limit's refusals were
    # retried free, for as long as the allowance lasted and not much longer.
    assert len(sent) > 3, len(sent)
    assert ALLOWANCE <= took < ALLOWANCE + 20, took
