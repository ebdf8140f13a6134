"""How long a retried request waits: exponential backoff with full jitter (so 64 refused
requests do not come back in one burst), never less than what the server asked for."""

from __future__ import annotations

import random

#: The first retry waits up to this many seconds; each further one doubles it, to `CAP`.
BASE_SECONDS = 0.5
CAP_SECONDS = 30.0


def backoff_delay(attempt: int, hint: float | None, rng: random.Random | None = None) -> float:
    """Seconds before retry number `attempt` (1 = the first retry). With a server hint the
    wait is the hint plus up to 10 % (spread so the waiters do not return together)."""
    draw: float = (rng or random).random()
    if hint is not None:
        return hint * (1.0 + 0.1 * draw)
    ceiling = min(CAP_SECONDS, BASE_SECONDS * 2.0 ** (attempt - 1))
    return ceiling * draw
