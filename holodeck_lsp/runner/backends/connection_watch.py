"""Counting the sends that could not reach the model's server, for "every turn failed on
connection errors" (exit status 3 and a summary that says the backend is down).

The preflight (preflight.py) catches a server that is down before the run; this catches one
that goes down during it, or answers the preflight's GET but not the chat API.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from holodeck_lsp.runner.backends.base import (
    AgentBackend,
    AgentSession,
    BackendConnectionError,
    SendResult,
    TurnFile,
)
from holodeck_lsp.runner.backends.case_sessions import CaseSessionFactory


@dataclass(slots=True)
class ConnectionCounts:
    sends: int = 0
    unreachable: int = 0
    #: The first connection error's message (secrets are masked by the caller).
    first_error: str | None = None

    @property
    def all_unreachable(self) -> bool:
        return self.sends > 0 and self.unreachable == self.sends


class WatchedBackend:
    """`inner`, with every session's sends counted in `counts`."""

    def __init__(self, inner: AgentBackend) -> None:
        self.inner = inner
        self.counts = ConnectionCounts()

    async def create_case_session(self, name: str | None, index: int) -> AgentSession:
        inner = self.inner
        if isinstance(inner, CaseSessionFactory):
            session = await inner.create_case_session(name, index)
        else:
            session = await inner.create_session()
        return _WatchedSession(session, self.counts)

    async def create_session(self) -> AgentSession:
        return _WatchedSession(await self.inner.create_session(), self.counts)

    async def aclose(self) -> None:
        await self.inner.aclose()


class _WatchedSession:
    def __init__(self, inner: AgentSession, counts: ConnectionCounts) -> None:
        self._inner = inner
        self._counts = counts

    async def send(self, message: str, files: Sequence[TurnFile] = ()) -> SendResult:
        counts = self._counts
        counts.sends += 1
        try:
            return await self._inner.send(message, files)
        except BackendConnectionError as error:
            counts.unreachable += 1
            if counts.first_error is None:
                counts.first_error = str(error)
            raise

    async def close(self) -> None:
        await self._inner.close()
