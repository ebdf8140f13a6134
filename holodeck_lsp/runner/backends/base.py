"""The backend protocol every agent backend implements, and its errors (defined in
`runner/backend_errors.py`, re-exported here).

A backend makes one session per test case; a session keeps the conversation, so turn N+1 is
sent only after turn N answered and sees its context. `send` returns the turn's response with
every tool call the agent made during that turn (name, arguments, result) and token usage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from holodeck_lsp.runner.backend_errors import (
    BackendConnectionError,
    BackendError,
    BackendInitError,
    BackendProviderError,
    BackendSessionError,
    BackendTimeoutError,
)
from holodeck_lsp.schema.results import TokenUsage, ToolInvocation

#: The errors live in a leaf module (runner/agent_code/ raises them too); re-exported here so
#: a backend finds its protocol and its errors in one place.
__all__ = [
    "AgentBackend",
    "AgentSession",
    "BackendConnectionError",
    "BackendError",
    "BackendInitError",
    "BackendProviderError",
    "BackendSessionError",
    "BackendTimeoutError",
    "SendResult",
    "TurnFile",
]


@dataclass(frozen=True, slots=True)
class TurnFile:
    """A file sent with one turn. Text-like files travel as `text`; images as `data`."""

    path: Path
    kind: Literal["text", "image"]
    media_type: str
    text: str | None = None
    data: bytes | None = None
    description: str | None = None


@dataclass(frozen=True, slots=True)
class SendResult:
    response: str
    tool_invocations: tuple[ToolInvocation, ...] = ()
    token_usage: TokenUsage | None = None
    #: The tool-round limit, when the turn was stopped at it (docs/running.md, "Tool loop").
    tool_limit_reached: int | None = None


class AgentSession(Protocol):
    async def send(self, message: str, files: Sequence[TurnFile] = ()) -> SendResult:
        """Send one user turn and wait for the agent's complete answer."""
        ...

    async def close(self) -> None:
        """Release the session (idempotent)."""
        ...


class AgentBackend(Protocol):
    async def create_session(self) -> AgentSession:
        """A fresh conversation (raises BackendInitError when that is impossible)."""
        ...

    async def aclose(self) -> None:
        """Release shared resources (HTTP clients, subprocesses)."""
        ...
