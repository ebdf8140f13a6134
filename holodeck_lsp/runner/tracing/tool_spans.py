"""`execute_tool` spans of a turn, made from its recorded tool invocations when the send has
answered (docs/observability.md, "Tool spans"): each call's duration is the one measured
where it ran; calls are laid end to end after the model call that asked for the first of
them, since the backends record the order and duration of calls, not their start times."""

from __future__ import annotations

from opentelemetry import trace
from opentelemetry.trace import Span, SpanKind, Status, StatusCode, Tracer

from holodeck_lsp.runner.tracing import genai
from holodeck_lsp.runner.tracing.content import json_text
from holodeck_lsp.schema.results import TurnResult


def add_tool_spans(
    tracer: Tracer,
    invoke: Span,
    turn: TurnResult,
    chats: list[tuple[int, int]],
    end: int,
    capture_content: bool,
) -> None:
    if not turn.tool_invocations or not invoke.is_recording():
        return
    started = getattr(invoke, "start_time", None) or end
    cursor = min(chats)[1] if chats else started
    parent = trace.set_span_in_context(invoke)
    for position, call in enumerate(turn.tool_invocations):
        duration = (call.duration_ms or 0) * 1_000_000
        begin = min(cursor, end)
        finish = min(begin + duration, end)
        attributes: dict[str, str | int] = {
            genai.OPERATION: "execute_tool",
            genai.TOOL_NAME: call.name,
            genai.TOOL_TYPE: "function",
            "holodeck.tool.position": position,
        }
        call_id = getattr(call, "call_id", None)
        if call_id:
            attributes[genai.TOOL_CALL_ID] = call_id
        if capture_content:
            attributes[genai.TOOL_CALL_ARGUMENTS] = json_text(
                call.raw_arguments if call.raw_arguments is not None else call.args
            )
            if call.error is None:
                attributes[genai.TOOL_CALL_RESULT] = json_text(call.result)
        span = tracer.start_span(
            f"execute_tool {call.name}",
            context=parent,
            kind=SpanKind.INTERNAL,
            attributes=attributes,
            start_time=begin,
        )
        if call.error is not None:
            span.set_attribute(genai.ERROR_TYPE, call.call_problem or "tool_error")
            span.set_status(Status(StatusCode.ERROR, call.error))
        span.end(end_time=finish)
        cursor = finish
