"""Provider weather for the loopback fakes (openai_server.py, anthropic_server.py): scripted
and random faults, and a rate limit, applied before a request reaches the fake's script.

A fault is one of: `429` with `Retry-After` (seconds) or `retry-after-ms`, `503`, a dropped
connection (the socket is closed before any answer) and a slow answer (a delay, then the
normal answer). `FaultPlan.scripted` gives the next requests those faults in order;
`random_rate` gives each request a seeded random one (at most `max_in_a_row` in a row for
one request, when the fake names the request); `per_second` makes the fake a rate limiter (a
token bucket over the whole server): a request over the limit is answered 429 with the
seconds until the next token as `Retry-After`, as hosted providers do. `limiter` makes it a
limiter of another shape instead (limiter_shapes.py: fixed window, sliding window counting
refusals, token bucket), answering in `header_style` (exact, always 1 s, reset only, none).

Both fakes call `FaultPlan.before(key)` (`key`: the request's identity across retries, its
last message): a response to send instead of the real one, the string `DROP` (close the
connection), or None (answer normally, maybe after `delay`).
"""

from __future__ import annotations

import asyncio
import json
import random
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Literal

from aiohttp import web

from tests.fakes.limiter_shapes import HeaderStyle, LimiterShape, refusal_headers

FaultKind = Literal["429", "503", "drop", "slow"]
DROP = "DROP"


@dataclass
class FaultPlan:
    #: Faults for the next requests, in order (then random or none).
    scripted: list[FaultKind] = field(default_factory=list)
    #: Share of requests (0..1) that get a random fault from `kinds`.
    random_rate: float = 0.0
    kinds: tuple[FaultKind, ...] = ("429", "503", "drop", "slow")
    seed: int = 0
    #: Seconds a 429 fault asks the client to wait (`Retry-After`); `retry_after_ms` when set
    #: is sent as `retry-after-ms` instead (OpenAI's header).
    retry_after: float = 1.0
    retry_after_ms: int | None = None
    #: Seconds a slow answer waits.
    slow_seconds: float = 0.5
    #: Requests per second the server accepts (a token bucket of `burst` tokens); None: no limit.
    per_second: float | None = None
    burst: int = 1
    #: A limiter of another shape (instead of `per_second`), and how its 429s say so.
    limiter: LimiterShape | None = None
    header_style: HeaderStyle = "exact"
    #: Random faults one request (`key`) may get in a row; None: no bound.
    max_in_a_row: int | None = None
    #: What happened: counts by fault kind, plus `429-limit` for rate-limit refusals and
    #: `requests` for every request seen.
    seen: Counter[str] = field(default_factory=Counter)
    _random: random.Random = field(init=False)
    _tokens: float = field(init=False, default=0.0)
    _refilled: float = field(init=False, default=0.0)
    _in_a_row: Counter[object] = field(init=False, default_factory=Counter)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)
        self._tokens = float(self.burst)
        self._refilled = time.monotonic()

    async def before(self, key: object = None) -> web.Response | str | None:
        self.seen["requests"] += 1
        if self.limiter is not None:
            # A provider's edge faults a request before its account's limit sees it.
            kind = self._next_fault(key)
            if kind is None:
                wait = self.limiter.admit(time.monotonic())
                if wait is not None:
                    self.seen["429-limit"] += 1
                    return _refused(refusal_headers(self.header_style, wait))
                return None
        else:
            limited = self._over_limit()
            if limited is not None:
                self.seen["429-limit"] += 1
                return _too_many(limited, None)
            kind = self._next_fault(key)
            if kind is None:
                return None
        self.seen[kind] += 1
        if kind == "429":
            if self.limiter is not None:
                return _refused(refusal_headers(self.header_style, self.retry_after))
            return _too_many(self.retry_after, self.retry_after_ms)
        if kind == "503":
            return web.json_response(
                {"error": {"message": "fake: service unavailable", "type": "server_error"}},
                status=503,
            )
        if kind == "drop":
            return DROP
        await asyncio.sleep(self.slow_seconds)
        return None

    def _next_fault(self, key: object) -> FaultKind | None:
        if self.scripted:
            return self.scripted.pop(0)
        if self.random_rate and self._random.random() < self.random_rate:
            if self.max_in_a_row is None or key is None:
                return self._random.choice(self.kinds)
            if self._in_a_row[key] < self.max_in_a_row:
                self._in_a_row[key] += 1
                return self._random.choice(self.kinds)
        self._in_a_row.pop(key, None)
        return None

    def _over_limit(self) -> float | None:
        """None when a token is free (and takes it), else seconds until the next one."""
        if self.per_second is None:
            return None
        now = time.monotonic()
        self._tokens = min(
            float(self.burst), self._tokens + (now - self._refilled) * self.per_second
        )
        self._refilled = now
        if self._tokens >= 1.0:
            self._tokens -= 1.0
            return None
        return (1.0 - self._tokens) / self.per_second


def _refused(headers: dict[str, str]) -> web.Response:
    return web.json_response(
        {"error": {"message": "fake: rate limit reached", "type": "rate_limit_error"}},
        status=429,
        headers=headers,
    )


def _too_many(seconds: float, ms: int | None) -> web.Response:
    headers = {"x-ratelimit-remaining-requests": "0"}
    if ms is not None:
        headers["retry-after-ms"] = str(ms)
    else:
        headers["Retry-After"] = f"{seconds:.3f}"
    return web.json_response(
        {"error": {"message": "fake: rate limit reached", "type": "rate_limit_error"}},
        status=429,
        headers=headers,
    )


def request_key(body: object) -> str:
    """A request's identity across its retries: its messages (a retry sends the same)."""
    messages = body.get("messages") if isinstance(body, dict) else None
    return json.dumps(messages, sort_keys=True, default=str)


def drop(request: web.Request) -> web.Response:
    """Close the connection without an answer (the client sees it dropped)."""
    transport = request.transport
    if transport is not None:
        transport.close()
    return web.Response(status=500)  # never reaches the client
