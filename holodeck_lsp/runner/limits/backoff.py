"""How long a retried request waits: exponential backoff with full jitter (so 64 refused
requests do not come back in one burst), never less than what the server asked for.

The exponent counts a request's *consecutive* failures without a hint (a 5xx, a dropped
connection), not all its retries, and while the endpoint is answering others the backoff is
capped at `ANSWERING_CAP_SECONDS` (transport.py): a passing fault after a few rate-limit
refusals is not a reason to sit out several seconds while the limit's slots go unused."""

from __future__ import annotations

import random

#: The first retry waits up to this many seconds; each further one doubles it, to `CAP`.
BASE_SECONDS = 0.5
CAP_SECONDS = 30.0
#: The ceiling while the endpoint answers other requests (its failures are passing).
ANSWERING_CAP_SECONDS = 2.0


def coarse_hint(hint: float) -> bool:
    """A wait of whole seconds (at least 1): `Retry-After` counts in whole seconds, so a
    limit whose slot frees in 0.05 s or in 0.95 s says `1` both times (some say `1` whatever
    their state, `retry-after-ms: 1000` too). Such a hint says when at the latest, not when:
    the refused requests wake spread over its last second, not all together a second later
    (the pace and the probe gate, not the hint, keep the endpoint's rate)."""
    return hint >= 1.0 and abs(hint - round(hint)) < 1e-6


def backoff_delay(
    attempt: int,
    hint: float | None,
    rng: random.Random | None = None,
    *,
    cap: float = CAP_SECONDS,
) -> float:
    """Seconds before retry number `attempt` (1 = the first retry, or the first of a run of
    failures without a hint). With a server hint the wait is the hint plus up to 10 % (spread
    so the waiters do not return together), or, a whole number of seconds (`coarse_hint`),
    spread over its last second; without one, full jitter up to the ceiling."""
    draw: float = (rng or random).random()
    if hint is not None:
        if coarse_hint(hint):
            return hint - draw  # spread over the second the hint rounds up
        return hint * (1.0 + 0.1 * draw)
    ceiling = min(cap, BASE_SECONDS * 2.0 ** min(attempt - 1, 60))
    return ceiling * draw
