"""A `chat` span per model call — the agent's (Semantic Kernel's client, the Claude CLI
through its relay) and the judges' — opened where the HTTP request goes out
(runner/limits/transport.py, runner/backends/claude/relay.py) and closed with what the
answer says: model, id, finish reasons, token usage (docs/observability.md, "Model calls")."""

from __future__ import annotations

import time
from typing import Any, Protocol

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from holodeck_lsp.runner.tracing import genai


class _ChatListener(Protocol):
    latest: bool

    def chat_ended(self, parent_span_id: int, start: int, end: int) -> None: ...


class ChatCall:
    def __init__(self, listener: _ChatListener, span: Span, parent_span_id: int) -> None:
        self._listener = listener
        self._span = span
        self._parent = parent_span_id
        self._started = time.time_ns()
        self._done = False

    def answered(
        self, status: int, body: bytes | None, input_tokens: int = 0, output_tokens: int = 0
    ) -> None:
        span = self._span
        attributes = genai.answer_attributes(body)
        if input_tokens or output_tokens:
            attributes.setdefault(genai.INPUT_TOKENS, input_tokens)
            attributes.setdefault(genai.OUTPUT_TOKENS, output_tokens)
        span.set_attributes(attributes)
        span.set_attribute("http.response.status_code", status)
        if status >= 400:
            span.set_attribute(genai.ERROR_TYPE, str(status))
            span.set_status(Status(StatusCode.ERROR, f"HTTP {status}"))
        self._end()

    def failed(self, error: BaseException) -> None:
        self._span.set_attribute(genai.ERROR_TYPE, type(error).__name__)
        self._span.set_status(Status(StatusCode.ERROR, f"{type(error).__name__}: {error}"))
        self._end()

    def _end(self) -> None:
        if self._done:
            return
        self._done = True
        end = time.time_ns()
        self._span.end(end_time=end)
        self._listener.chat_ended(self._parent, self._started, end)


def start_model_call(
    listener: _ChatListener, tracer: Tracer, url: str, body: bytes, ctx: Any, role: str
) -> ChatCall:
    request = genai.read_request(url, body)
    attributes: dict[str, Any] = {
        genai.OPERATION: "chat",
        genai.PROVIDER: request.provider,
        genai.CALL_ROLE: role,
    }
    if not listener.latest:
        attributes[genai.SYSTEM_OLD] = request.provider
    if request.model is not None:
        attributes[genai.REQUEST_MODEL] = request.model
    if request.address is not None:
        attributes[genai.SERVER_ADDRESS] = request.address
    if request.port is not None:
        attributes[genai.SERVER_PORT] = request.port
    name = f"chat {request.model}" if request.model else "chat"
    span = tracer.start_span(name, context=ctx, kind=SpanKind.CLIENT, attributes=attributes)
    parent = trace.get_current_span(ctx).get_span_context().span_id
    return ChatCall(listener, span, parent)
