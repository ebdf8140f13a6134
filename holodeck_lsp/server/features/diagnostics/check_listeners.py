"""Telling other features of each accepted check, in the order of the versions checked.

Listeners (re-grading on edit, the refusal watch; `server/runs/commands.py` adds them) hear of
every check the engine accepts for an open agent's current version. The opened version's check
made before the server started (server/early_diagnostics.py) is told only once the client's
settings are read — the listeners read them — and an edit's check accepted meanwhile waits for
it, so the listeners never end on an older text than the user's.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Callable

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.features.diagnostics.analysis import Analysis

log = logging.getLogger(__name__)

#: Told of every check accepted for an open agent's current version.
CheckListener = Callable[[str, Analysis], None]


class CheckListeners:
    def __init__(self, server: HolodeckServer) -> None:
        self.server = server
        self.listeners: list[CheckListener] = []
        self._telling: set[asyncio.Future[None]] = set()
        #: URI -> the last tell still waiting (on the settings, or on the tell before it).
        self.pending: dict[str, asyncio.Future[None]] = {}

    def tell_when_settled(self, uri: str, analysis: Analysis) -> None:
        """Tell the listeners of `analysis` once the settings are read (as the engine's own
        checks wait for them)."""

        async def when_settled() -> None:
            await self.server.settings_read()
            self._tell(uri, analysis)

        self._keep_pending(uri, asyncio.ensure_future(when_settled()))

    def tell_in_order(self, uri: str, analysis: Analysis) -> None:
        """Tell the listeners of `analysis` after any tell of `uri` still waiting: an edit's
        check may be accepted while the opened version's (checked before the server started)
        waits for the settings, and told first it would leave re-grade on edit on the older
        text once the opened version is told after it."""
        pending = self.pending.get(uri)
        if pending is None or pending.done():
            self._tell(uri, analysis)
            return

        async def after_pending() -> None:
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.shield(pending)
            self._tell(uri, analysis)

        self._keep_pending(uri, asyncio.ensure_future(after_pending()))

    def forget(self, uri: str) -> None:
        self.pending.pop(uri, None)

    def _keep_pending(self, uri: str, told: asyncio.Future[None]) -> None:
        self.pending[uri] = told
        self._telling.add(told)
        told.add_done_callback(self._telling.discard)

    def _tell(self, uri: str, analysis: Analysis) -> None:
        for listener in self.listeners:
            try:
                listener(uri, analysis)
            except Exception:  # a listener's bug must not stop diagnostics
                log.exception("check listener failed for %s", uri)
