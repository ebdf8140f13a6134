"""Many requests through the real retry loop and one endpoint's limiter, a number at a time,
as a run's parallel turns send them: the drive the limiter's shape tests share."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Awaitable, Callable
from typing import Any

import httpx

from holodeck_lsp.runner.limits.endpoint import EndpointLimiter
from holodeck_lsp.runner.limits.transport import Retrying


async def send_all(
    limiter: EndpointLimiter,
    attempt: Callable[..., Awaitable[Any]],
    *,
    requests: int = 80,
    at_once: int = 32,
) -> None:
    """`requests` sends of `attempt`, `at_once` at a time, each retried (a budget of 50, a
    seeded jitter) until it is answered 200."""
    retrying = Retrying(limiter, 50, (httpx.TransportError,), random.Random(3))
    queue = list(range(requests))

    async def worker() -> None:
        while queue:
            queue.pop()
            response = await retrying.send(attempt, None)
            assert response.status_code == 200

    await asyncio.gather(*(worker() for _ in range(at_once)))
