"""Keep the garbage collector off the start-up heap during a command-line run.

A live run imports Semantic Kernel, the openai client, deepeval and pydantic's models of
them: several hundred thousand long-lived objects. CPython's full (generation 2) collection
walks all of them each time, and while it does the event loop stands still: on a
`--parallel 64` run of the financial-assistant sample that was 0.2–0.4 s per collection, a
collection every few seconds (measured with `gc.callbacks`, docs/benchmarks.md). `gc.freeze()`
moves everything alive at that moment into the permanent generation, which collections
skip; what the run itself allocates is collected as before.

Only the CLI calls this, once per process, after the backend and judges are open (their
imports done). The language server does not: it lives for hours, and objects frozen there
would never be freed (it has its own idle-time collection, server/idle_gc.py).
"""

from __future__ import annotations

import gc

_frozen = False


def freeze_startup_heap() -> bool:
    """Freeze what is alive now, the first time only; True if this call froze it."""
    global _frozen
    if _frozen:
        return False
    _frozen = True
    gc.freeze()
    return True
