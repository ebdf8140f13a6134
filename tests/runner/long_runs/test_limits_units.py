"""The parts of runner/limits/ on their own: headers read, backoff bounds, the AIMD window,
the token bucket, the per-turn budget, one limiter per endpoint for agent and judge."""

from __future__ import annotations

import asyncio
import random
import time
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

from holodeck_lsp.runner.limits import registry
from holodeck_lsp.runner.limits.backoff import CAP_SECONDS, backoff_delay
from holodeck_lsp.runner.limits.bucket import Bucket
from holodeck_lsp.runner.limits.budget import current_budget, turn_budget
from holodeck_lsp.runner.limits.headers import duration, limit_reset, retry_after
from holodeck_lsp.runner.limits.window import Window


def test_retry_after_headers() -> None:
    assert retry_after({"retry-after-ms": "250", "Retry-After": "9"}) == 0.25
    assert retry_after({"Retry-After": "2"}) == 2.0
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    hinted = retry_after({"Retry-After": later})
    assert hinted is not None and 25 < hinted <= 30
    assert (
        retry_after({"x-ratelimit-remaining-requests": "0", "x-ratelimit-reset-requests": "6m0s"})
        == 120.0
    )
    assert (
        limit_reset({"x-ratelimit-remaining-tokens": "0", "x-ratelimit-reset-tokens": "20ms"})
        == 0.02
    )
    assert (
        limit_reset({"x-ratelimit-remaining-requests": "5", "x-ratelimit-reset-requests": "1s"})
        is None
    )
    assert retry_after({}) is None
    assert duration("1m30s") == 90 and duration("1.5") == 1.5 and duration("soon") is None


def test_backoff_grows_with_jitter_and_honours_the_hint() -> None:
    rng = random.Random(1)
    firsts = [backoff_delay(1, None, rng) for _ in range(200)]
    assert max(firsts) <= 0.5 and min(firsts) >= 0 and len(set(firsts)) > 100
    assert max(backoff_delay(30, None, rng) for _ in range(50)) <= CAP_SECONDS
    hinted = [backoff_delay(1, 2.5, rng) for _ in range(50)]
    assert all(2.5 <= d <= 2.75 for d in hinted)


async def test_window_shrinks_on_429_and_grows_back_slowly() -> None:
    window = Window(ceiling=16)
    assert window.size == 4
    for _ in range(6):  # slow start: +1 per answer
        await window.acquire()
        window.release("ok")
    assert window.size == 10
    first = await window.acquire()
    second = await window.acquire()
    window.release("limited", first)
    assert window.size == 5
    window.release("limited", second)  # sent before the narrowing: the same overload
    assert window.size == 5
    before = window.size
    for _ in range(5):
        await window.acquire()
        window.release("ok")
    assert before < window.size < before + 1


async def test_window_holds_requests_beyond_its_size() -> None:
    window = Window(ceiling=2, start=2)
    await window.acquire()
    await window.acquire()
    third = asyncio.ensure_future(window.acquire())
    await asyncio.sleep(0.01)
    assert not third.done() and window.waiting == 1
    window.release("other")
    await asyncio.wait_for(third, 1)
    assert window.in_flight == 2


async def test_bucket_paces_requests() -> None:
    bucket = Bucket(per_minute=600)  # 10 a second, a burst of 10
    started = time.monotonic()
    for _ in range(15):
        await bucket.take()
    assert time.monotonic() - started >= 0.4


def test_a_turn_budget_is_shared_by_its_requests() -> None:
    with turn_budget(2):
        first, second = current_budget(9), current_budget(9)
        assert first is second
        assert first.take() and second.take() and not first.take()
    assert current_budget(3).remaining == 3


def test_one_limiter_per_endpoint_and_model() -> None:
    a = registry.limiter_for("http://h:1/v1/", "openai:m")
    assert registry.limiter_for("http://h:1", "openai:m") is a
    assert registry.limiter_for("http://h:1/v1", "openai:other") is not a
