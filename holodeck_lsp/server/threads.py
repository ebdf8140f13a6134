"""The threads the server starts beside its event loop, and how the process ends with them.

The server starts daemon threads for work that must not hold up its event loop: importing the
checker and the run core ahead of use, and runs (SDKs, function tools and code graders may
block). A daemon thread must never still be running when the interpreter finalises: CPython
then stops it where it next touches the interpreter, by unwinding its stack with
`pthread_exit`, and when that stack holds native frames (pydantic-core building the models'
validators during the warm-up import, an SDK's extension) the unwinding aborts the whole
process — SIGABRT and `FATAL: exception not rethrown`, seen after a quick
initialize → shutdown → exit, when the exit arrived while the warm-up import was still going.

So every such thread is started here, and `settle` — called once the server's loop has ended —
asks the stoppable ones (runs) to stop and waits for all of them. A thread that does not end
within the grace time (a tool blocked in a system call) is reported by name, and the caller
then ends the process without finalising the interpreter (commands/serve.py).
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Final

log = logging.getLogger(__name__)

#: How long `settle` waits for the server's threads: a cancelled run ends its current SDK
#: call and a warm-up import finishes within this on the 2-core machine.
GRACE_S: Final = 10.0

_lock = threading.Lock()
#: The server's live threads, each with what asks it to stop (None: it ends by itself).
_live: dict[threading.Thread, Callable[[], None] | None] = {}


def start(target: Callable[[], None], name: str, stop: Callable[[], None] | None = None) -> None:
    """Run `target` in a new daemon thread that `settle` waits for (after calling `stop`)."""

    def main() -> None:
        try:
            target()
        finally:
            with _lock:
                _live.pop(threading.current_thread(), None)

    thread = threading.Thread(target=main, name=name, daemon=True)
    with _lock:
        _live[thread] = stop
    thread.start()


def settle(grace_s: float = GRACE_S) -> list[str]:
    """Stop and wait for the server's threads; the names of the daemon threads still alive
    afterwards (the server's own that did not end in time, and any a library started)."""
    with _lock:
        live = dict(_live)
    for stop in live.values():
        if stop is not None:
            stop()
    deadline = time.monotonic() + grace_s
    for thread in live:
        thread.join(max(0.0, deadline - time.monotonic()))
    left = [t.name for t in threading.enumerate() if t.daemon and t.is_alive()]
    if left:
        log.warning("threads still running at exit: %s", ", ".join(sorted(left)))
    return left
