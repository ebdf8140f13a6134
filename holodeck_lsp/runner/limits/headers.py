"""The wait a provider's response asks for, in seconds, from its headers.

`retry-after-ms` (OpenAI, Azure) wins over `Retry-After` (seconds, or an HTTP date); when a
response says a limit is used up (`x-ratelimit-remaining-requests: 0` or `…-tokens: 0`) its
`x-ratelimit-reset-*` says when it refills (`1s`, `6m0s`, `20ms`, or seconds), and Anthropic's
`anthropic-ratelimit-*-reset` is an RFC 3339 time.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

#: A hint longer than this is not waited for inside one turn (the budget ends the turn).
MAX_HINT_SECONDS = 120.0
_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ms|h|m|s)")
_UNITS = {"ms": 0.001, "s": 1.0, "m": 60.0, "h": 3600.0}


def retry_after(headers: Mapping[str, str]) -> float | None:
    """The explicit wait of a refused request (429/503), or None."""
    lowered = {k.lower(): v for k, v in headers.items()}
    ms = lowered.get("retry-after-ms")
    if ms is not None:
        try:
            return _bounded(float(ms) / 1000)
        except ValueError:
            pass
    value = lowered.get("retry-after")
    if value is not None:
        seconds = _seconds_or_date(value)
        if seconds is not None:
            return _bounded(seconds)
    return limit_reset(lowered)


def used_up(headers: Mapping[str, str]) -> bool:
    """Whether a response says a limit is used up (`x-ratelimit-remaining-*: 0`, Anthropic's
    `anthropic-ratelimit-*-remaining: 0`), its reset named or not: a 429 saying so is the
    limit's, not a refusal at random."""
    lowered = {k.lower(): v.strip() for k, v in headers.items()}
    return any(
        lowered.get(name) == "0"
        for kind in ("requests", "tokens")
        for name in (f"x-ratelimit-remaining-{kind}", f"anthropic-ratelimit-{kind}-remaining")
    )


def limit_reset(headers: Mapping[str, str]) -> float | None:
    """When a used-up limit refills (`x-ratelimit-remaining-*: 0`), else None."""
    lowered = {k.lower(): v for k, v in headers.items()}
    waits = []
    for kind in ("requests", "tokens"):
        if lowered.get(f"x-ratelimit-remaining-{kind}", "").strip() == "0":
            wait = duration(lowered.get(f"x-ratelimit-reset-{kind}", ""))
            if wait is not None:
                waits.append(wait)
        if lowered.get(f"anthropic-ratelimit-{kind}-remaining", "").strip() == "0":
            wait = _seconds_or_date(lowered.get(f"anthropic-ratelimit-{kind}-reset", ""))
            if wait is not None:
                waits.append(wait)
    return _bounded(max(waits)) if waits else None


def duration(text: str) -> float | None:
    """`1s`, `6m0s`, `20ms`, `1.5` (seconds) -> seconds; None when unreadable."""
    text = text.strip()
    if not text:
        return None
    try:
        return float(text)
    except ValueError:
        pass
    parts = _DURATION.findall(text)
    if not parts or "".join(n + u for n, u in parts) != text:
        return None
    return sum(float(number) * _UNITS[unit] for number, unit in parts)


def _seconds_or_date(value: str) -> float | None:
    value = value.strip()
    if not value:
        return None
    try:
        return float(value)
    except ValueError:
        pass
    try:
        when = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        try:
            when = parsedate_to_datetime(value)
        except (TypeError, ValueError):
            return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return (when - datetime.now(UTC)).total_seconds()


def _bounded(seconds: float) -> float:
    return min(max(0.0, seconds), MAX_HINT_SECONDS)
