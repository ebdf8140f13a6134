"""The backend protocol every agent backend implements, and its errors.

A backend makes one session per test case; a session keeps the conversation, so turn N+1 is
sent only after turn N answered and sees its context. `send` returns the turn's response with
every tool call the agent made during that turn (name, arguments, result) and token usage.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from holodeck_lsp.schema.results import TokenUsage, ToolInvocation


class BackendError(Exception):
    """Base of every backend failure; its message is shown in reports as the turn's error."""


class BackendInitError(BackendError):
    """The backend or a session could not be created (missing extra, key, unreachable host)."""


class BackendSessionError(BackendError):
    """A send failed. `recoverable` False means the session is dead: later turns are skipped."""

    def __init__(self, message: str, *, recoverable: bool = True) -> None:
        super().__init__(message)
        self.recoverable = recoverable


class BackendProviderError(BackendSessionError):
    """The provider, not the agent, kept the send from completing: 429 after the retry budget,
    5xx, a dropped connection, an HTTP timeout. The turn is reported `errored` (not measured),
    never failed; the session goes on (the half turn was not kept)."""


class BackendConnectionError(BackendProviderError):
    """A send could not reach the model's server at all (refused, reset, unknown host). A run
    where every send failed so reports "the backend is down", not N wrong answers."""


class BackendTimeoutError(BackendError):
    """A send took longer than `execution.llm_timeout`."""


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
