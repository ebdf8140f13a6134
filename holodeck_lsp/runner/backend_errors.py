"""The errors of an agent backend, one hierarchy: what `runner/backends/` raises and what the
user's code loaders in `runner/agent_code/` raise when a tool or MCP server cannot be set up.

A leaf module (it imports nothing of ours) so that both folders use it without importing each
other; `runner/backends/base.py` re-exports these classes beside the backend protocol.
"""

from __future__ import annotations


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
