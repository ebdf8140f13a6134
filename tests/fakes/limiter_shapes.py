"""The shapes of rate limiter a hosted provider may run, for the loopback fakes (faults.py)
and the long-run benchmark (bench/long_run_faults.py): standard library only, no clock of
its own (every call is given `now`).

- `bucket`: a token bucket of `burst` tokens refilled at `limit / window` a second; a refused
  request takes no token;
- `fixed`: at most `limit` accepted requests per window aligned on multiples of `window`
  seconds; a refused request is not counted;
- `sliding`: at most `limit` requests in any `window` seconds, and every request counts,
  refused ones too (a client that keeps knocking keeps the window full).

How a refusal says so (`HeaderStyle`): `exact` (`Retry-After` = seconds to the next free
slot, `x-ratelimit-remaining-requests: 0`), `fixed` (always `Retry-After: 1`,
`retry-after-ms: 1000`, `x-ratelimit-remaining-requests: 0`, whatever the limit's state),
`reset` (`x-ratelimit-remaining-requests: 0` and `x-ratelimit-reset-requests` = seconds to
the next free slot, no `Retry-After`) or `none` (a bare 429).

`RecoverableFaults` draws the random faults a provider's edge adds (429 / 503 / dropped
connection) with at most `max_in_a_row` in a row for one request, so every request is
recoverable within a retry budget.
"""

from __future__ import annotations

import collections
import math
import random
from dataclasses import dataclass, field
from typing import Literal

ShapeName = Literal["bucket", "fixed", "sliding"]
HeaderStyle = Literal["exact", "fixed", "reset", "none"]
SHAPES: tuple[ShapeName, ...] = ("bucket", "fixed", "sliding")
HEADER_STYLES: tuple[HeaderStyle, ...] = ("exact", "fixed", "reset", "none")


@dataclass
class LimiterShape:
    """One limiter: `admit(now)` is None (accepted) or the seconds to its next free slot."""

    shape: ShapeName
    limit: int
    window: float = 1.0
    burst: int = 1  # the bucket's size (the other shapes allow `limit` per window)
    _level: float = field(init=False, default=0.0)
    _at: float | None = field(init=False, default=None)
    _window_start: float = field(init=False, default=-math.inf)
    _count: int = field(init=False, default=0)
    _log: collections.deque[float] = field(init=False, default_factory=collections.deque)

    def __post_init__(self) -> None:
        if self.shape not in SHAPES:
            raise ValueError(f"unknown limiter shape {self.shape!r}: one of {', '.join(SHAPES)}")
        self._level = float(self.burst)

    @property
    def per_second(self) -> float:
        return self.limit / self.window

    def admit(self, now: float) -> float | None:
        if self.shape == "bucket":
            return self._bucket(now)
        if self.shape == "fixed":
            return self._fixed(now)
        return self._sliding(now)

    def _bucket(self, now: float) -> float | None:
        if self._at is not None:
            self._level = min(float(self.burst), self._level + (now - self._at) * self.per_second)
        self._at = now
        if self._level >= 1.0:
            self._level -= 1.0
            return None
        return (1.0 - self._level) / self.per_second

    def _fixed(self, now: float) -> float | None:
        start = math.floor(now / self.window) * self.window
        if start != self._window_start:
            self._window_start, self._count = start, 0
        if self._count < self.limit:
            self._count += 1
            return None
        return start + self.window - now

    def _sliding(self, now: float) -> float | None:
        log = self._log
        while log and log[0] <= now - self.window:
            log.popleft()
        accepted = len(log) < self.limit
        log.append(now)  # a refused request counts too
        if accepted:
            return None
        # The slot frees when enough of the window's requests have aged out.
        return log[len(log) - self.limit] + self.window - now


def refusal_headers(style: HeaderStyle, wait: float) -> dict[str, str]:
    """The headers of a 429 whose limit frees a slot in `wait` seconds, in `style`."""
    if style == "exact":
        return {"Retry-After": f"{wait:.3f}", "x-ratelimit-remaining-requests": "0"}
    if style == "fixed":
        return {
            "Retry-After": "1",
            "retry-after-ms": "1000",
            "x-ratelimit-remaining-requests": "0",
        }
    if style == "reset":
        return {
            "x-ratelimit-remaining-requests": "0",
            "x-ratelimit-reset-requests": f"{max(wait, 0.001) * 1000:.0f}ms",
        }
    if style == "none":
        return {}
    raise ValueError(f"unknown header style {style!r}: one of {', '.join(HEADER_STYLES)}")


FaultName = Literal["429", "503", "drop"]


@dataclass
class RecoverableFaults:
    """Random faults at `rate`, never more than `max_in_a_row` for one request (`key`: the
    request's identity across its retries, e.g. case and turn)."""

    rate: float
    seed: int = 0
    kinds: tuple[FaultName, ...] = ("429", "503", "drop")
    max_in_a_row: int = 2
    _random: random.Random = field(init=False)
    _in_a_row: dict[object, int] = field(init=False, default_factory=dict)

    def __post_init__(self) -> None:
        self._random = random.Random(self.seed)

    def draw(self, key: object) -> FaultName | None:
        if not self.rate or self._random.random() >= self.rate:
            self._in_a_row.pop(key, None)
            return None
        if self._in_a_row.get(key, 0) >= self.max_in_a_row:
            self._in_a_row.pop(key, None)
            return None
        self._in_a_row[key] = self._in_a_row.get(key, 0) + 1
        return self._random.choice(self.kinds)
