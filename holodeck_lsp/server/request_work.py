"""Work a request does over a whole document (semantic tokens, links, the outline, folds) runs
here, off the event loop: a long answer never holds up the next request, and `$/cancelRequest`
is read and honoured while it runs — the awaiting handler is cancelled and pygls answers the
request with the LSP "request cancelled" error (docs/editors/README.md, "Limits and errors").

The work itself is linear in the document (each collection walked once) and the document's
size is bounded (`documents/size_limit.py`), so a cancelled computation that is already
running ends soon by itself; one still queued is dropped.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

_T = TypeVar("_T")

#: Two cores on the machine the figures were taken on: two workers keep one long request from
#: queueing the next, and more would only share the same cores (and the GIL).
WORKERS = 2
_executor = ThreadPoolExecutor(WORKERS, thread_name_prefix="holodeck-request")


async def off_loop(work: Callable[[], _T]) -> _T:
    """`work()` in a worker thread; cancelling the awaiting request drops it if not started."""
    future = _executor.submit(work)
    try:
        return await asyncio.wrap_future(future)
    except asyncio.CancelledError:
        future.cancel()
        raise
