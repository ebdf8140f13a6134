"""Sessions that know which test case they serve, and how a send was interrupted: an
extension of the backend protocol (`base.py`) that the executor, the cassette's wrapping
backends and the connection watch all speak.

`AgentBackend.create_session()` takes no arguments: a live backend does not care which case a
conversation belongs to. Cassettes do (a recording files each turn under its case; a replay
answers from that case's turns), so the executor asks a backend that implements
`CaseSessionFactory` for `create_case_session(name, index)` instead.

When the executor interrupts a send (its `llm_timeout` expired, or the run was cancelled) it
cancels the send's task with one of the messages below, so a wrapping session (the recorder)
can tell the two apart from the `CancelledError` it sees.
"""

from __future__ import annotations

from typing import Protocol, runtime_checkable

from holodeck_lsp.runner.backends.base import AgentSession, BackendError

#: Cancellation message of a send the run's cancellation interrupted.
CANCELLED = "cancelled"


def timeout_message(seconds: float) -> str:
    """A turn's error when its send outlived `execution.llm_timeout`."""
    return f"timed out after {seconds:g}s"


def describe_error(error: BaseException) -> str:
    """A failed send's error as reports show it: a backend error's own message, otherwise
    the exception type and message (an unexpected exception names itself)."""
    if isinstance(error, BackendError):
        return str(error) or type(error).__name__
    message = str(error)
    return f"{type(error).__name__}: {message}" if message else type(error).__name__


@runtime_checkable
class CaseSessionFactory(Protocol):
    async def create_case_session(self, name: str | None, index: int) -> AgentSession:
        """A fresh conversation for test case `index` (named `name`, if it has a name)."""
        ...
