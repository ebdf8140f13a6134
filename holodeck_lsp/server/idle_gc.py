"""Garbage collection in the language server: only when the user pauses.

The server keeps each open document's parse (a YAML node tree and the values built from it) and
replaces it on every edit. For a 1,000-case suite that is some 600,000 objects per version, and
CPython's automatic collector walks all of them again whenever enough new objects have been
promoted — which, with a new tree per edit, is about every edit: a pause of around 200 ms (2
CPUs) landing in the middle of checking or answering a request.

Almost nothing the server allocates is cyclic (trees, dicts, lists and pydantic models are freed
by reference counting as soon as they are replaced), so the collector is switched off while the
server runs and a full collection is made once the documents have been quiet for `IDLE_S`
seconds — when nobody is waiting for an answer — and, so that memory stays bounded through
long bursts of typing or a long run, at least every `MAX_INTERVAL_S` seconds of activity.
"""

from __future__ import annotations

import asyncio
import gc
import logging
import time
from typing import Final

log = logging.getLogger(__name__)

#: Quiet time (no document change) before a collection.
IDLE_S: Final = 2.0
#: Longest stretch of continuous activity without a collection.
MAX_INTERVAL_S: Final = 60.0


class IdleCollector:
    def __init__(self, idle_s: float = IDLE_S, max_interval_s: float = MAX_INTERVAL_S) -> None:
        self.idle_s = idle_s
        self.max_interval_s = max_interval_s
        self._timer: asyncio.TimerHandle | None = None
        self._last = time.monotonic()
        self.collections = 0

    def start(self) -> None:
        """Turn automatic collection off for the rest of the process."""
        gc.disable()

    def activity(self) -> None:
        """Something happened (a document changed, a run finished a case): collect once it
        has been quiet for `idle_s`, or now when the last collection is too long ago."""
        if self._timer is not None:
            self._timer.cancel()
        overdue = time.monotonic() - self._last >= self.max_interval_s
        self._timer = asyncio.get_running_loop().call_later(
            0.0 if overdue else self.idle_s, self.collect
        )

    def collect(self) -> None:
        self._timer = None
        self._last = time.monotonic()
        started = time.perf_counter()
        found = gc.collect()
        self.collections += 1
        log.debug(
            "idle collection: %d unreachable objects in %.0f ms",
            found,
            (time.perf_counter() - started) * 1000,
        )
