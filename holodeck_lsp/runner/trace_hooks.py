"""The few calls the run makes into tracing (runner/tracing/), each a no-op when the run is not
traced. Beside the tracing package rather than in it: the run (execution/, backends/, limits/)
calls these, and the tracing package reads the run's progress events, so neither folder imports
the other.

The run's tracer (tracing/run_trace.py) sits in a context variable for the length of the run
(`tracing_run`); the executor's case tasks, the backends' sends and the judges' calls inherit
it. Code that runs outside those tasks (the Claude relay's connections) takes it with
`capture()` in the send and hands it back to `model_call`. Importing this module imports no
OpenTelemetry (tests/runner/tracing/test_tracing_off.py).
"""

from __future__ import annotations

import contextlib
from collections.abc import Awaitable, Iterator
from contextvars import ContextVar
from typing import Any, Protocol

from holodeck_lsp.runner.execution.events import CaseRef


class ModelCall(Protocol):
    """One model call being traced (a `chat` span)."""

    def answered(
        self, status: int, body: bytes | None, input_tokens: int, output_tokens: int
    ) -> None: ...

    def failed(self, error: BaseException) -> None: ...


class RunTrace(Protocol):
    def sending(self, ref: CaseRef, turn_index: int) -> contextlib.AbstractContextManager[None]: ...

    def judging(self, ref: CaseRef, turn_index: int) -> contextlib.AbstractContextManager[None]: ...

    def model_call(self, url: str, body: bytes, parent: Any = None) -> ModelCall: ...

    def capture(self) -> Any: ...


_RUN: ContextVar[RunTrace | None] = ContextVar("holodeck_run_trace", default=None)


@contextlib.contextmanager
def tracing_run(trace: RunTrace | None) -> Iterator[None]:
    """Within the block (and in every task started in it), `trace` receives the hooks."""
    if trace is None:
        yield
        return
    token = _RUN.set(trace)
    try:
        yield
    finally:
        _RUN.reset(token)


@contextlib.contextmanager
def sending(ref: CaseRef, turn_index: int) -> Iterator[None]:
    """Around one turn's send: its `invoke_agent` span is the current one."""
    trace = _RUN.get()
    if trace is None:
        yield
        return
    with trace.sending(ref, turn_index):
        yield


@contextlib.contextmanager
def judging(ref: CaseRef, turn_index: int) -> Iterator[None]:
    """Around one turn's judge calls: their `chat` spans are children of the turn."""
    trace = _RUN.get()
    if trace is None:
        yield
        return
    with trace.judging(ref, turn_index):
        yield


def capture() -> tuple[RunTrace, Any] | None:
    """The run's tracer and the current span, for work done in another task."""
    trace = _RUN.get()
    return None if trace is None else (trace, trace.capture())


def model_call(
    url: str, body: bytes, captured: tuple[RunTrace, Any] | None = None
) -> ModelCall | None:
    """A `chat` span for a model call about to be made (None when the run is not traced)."""
    if captured is not None:
        trace, parent = captured
        return trace.model_call(url, body, parent)
    current = _RUN.get()
    return None if current is None else current.model_call(url, body)


def http_call(request: Any) -> ModelCall | None:
    """`model_call` for an httpx request about to be sent (None at once when not traced)."""
    if _RUN.get() is None:
        return None
    try:
        body = bytes(request.content)
    except Exception:  # a streamed body not read yet: the span goes without the request model
        body = b""
    return model_call(str(request.url), body)


async def traced_send(call: ModelCall, sending: Awaitable[Any]) -> Any:
    """An HTTP send (httpx's transport API) with its `chat` span closed by the answer: a JSON
    answer is read here for its usage (as the retry loop reads one for a `tpm` limit)."""
    try:
        response = await sending
    except BaseException as error:
        call.failed(error)
        raise
    body: bytes | None = None
    if "json" in response.headers.get("content-type", ""):
        try:
            body = await response.aread()
        except Exception as error:  # the caller reads it again and reports what went wrong
            call.failed(error)
            return response
    call.answered(int(response.status_code), body, 0, 0)
    return response
