"""A run's progress displays redraw on its events — a case started, a turn answered. A long
stall has none: a 429's `Retry-After`, a slow provider, a slow grader. Without a beat the
terminal's totals line and the editor's progress freeze on their last figures (elapsed, the
rate, ETA, "waiting on rate limit") and a working run looks hung. `heartbeat(beat)` calls
`beat` about once a second while the run is in progress, on the caller's loop (where the
display's events arrive too), and stops when the block ends, however it ends.

The displays call it: the terminal's live totals line (commands/console/totals_bar.py) and
the editor's work-done progress (server/runs/progress.py)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator, Callable
from typing import Final

log = logging.getLogger("holodeck_lsp.runner")

#: Seconds between beats: the elapsed time a display shows moves once a second.
HEARTBEAT_SECONDS: Final = 1.0


@contextlib.asynccontextmanager
async def heartbeat(
    beat: Callable[[], None] | None, every: float = HEARTBEAT_SECONDS
) -> AsyncIterator[None]:
    """`async with heartbeat(display.redraw): await session.run(…)`; None: no beat."""
    if beat is None:
        yield
        return
    task = asyncio.create_task(_beating(beat, every), name="progress heartbeat")
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


async def _beating(beat: Callable[[], None], every: float) -> None:
    while True:
        await asyncio.sleep(every)
        try:
            beat()
        except Exception:  # a display's bug must not end the beat, nor the run
            log.exception("progress heartbeat failed")
