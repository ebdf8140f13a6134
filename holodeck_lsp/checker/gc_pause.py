"""Pause the cyclic garbage collector around a burst of allocation.

Loading a suite allocates hundreds of thousands of small objects (nodes, dicts, models) that
all stay alive until the load ends; every generational GC pass would walk them again for
nothing. Pausing GC for the load makes a 1,000-case check several times faster. Reference
counting still frees garbage as usual; collection simply resumes afterwards."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def gc_paused() -> Iterator[None]:
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
