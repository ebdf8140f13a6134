"""Spans grouped into conversations: each `invoke_agent` span is a turn (its user message, its
answer, the `execute_tool` spans under it), and turns sharing a `gen_ai.conversation.id` (or
else a trace) are one conversation, in the order they started (docs/importing-otel.md).

Pure: spans in, conversations out.
"""

from __future__ import annotations

import json
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from holodeck_lsp.importers.otel.spans import OtelImportError, Span

CONTENT_HINT = (
    "record the conversation with message content: OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_"
    "CONTENT=true (holodeck-lsp run: that, or `capture_content: true` under observability.traces)"
)


@dataclass(frozen=True, slots=True)
class ToolCall:
    #: As the agent called it (`tools-subtract`, `mcp__tools__subtract`).
    called: str
    args: dict[str, Any]
    raw_arguments: str | None
    result: Any
    error: str | None


@dataclass(slots=True)
class Turn:
    input: str
    answer: str | None
    tools: list[ToolCall] = field(default_factory=list)
    input_tokens: int = 0
    output_tokens: int = 0
    error: str | None = None


@dataclass(slots=True)
class Conversation:
    key: str
    trace_id: str
    service: str | None
    agent: str | None
    provider: str | None
    model: str | None
    turns: list[Turn] = field(default_factory=list)


def conversations(spans: list[Span]) -> list[Conversation]:
    by_id = {(span.trace_id, span.span_id): span for span in spans}
    children: defaultdict[tuple[str, str], list[Span]] = defaultdict(list)
    for span in spans:
        if span.parent:
            children[(span.trace_id, span.parent)].append(span)
    invokes = sorted(
        (span for span in spans if span.operation == "invoke_agent"), key=lambda s: s.start
    )
    if not invokes:
        raise OtelImportError(
            "no `invoke_agent` span in the file: a turn is read from the GenAI conventions' "
            "invoke_agent span (its gen_ai.input.messages and gen_ai.output.messages)"
        )
    found: dict[str, Conversation] = {}
    for invoke in invokes:
        key = _conversation_id(invoke, by_id) or invoke.trace_id
        conversation = found.get(key)
        if conversation is None:
            conversation = found[key] = Conversation(
                key,
                invoke.trace_id,
                invoke.service,
                _text(invoke.attributes.get("gen_ai.agent.name")),
                _text(invoke.attributes.get("gen_ai.provider.name")),
                _text(invoke.attributes.get("gen_ai.request.model")),
            )
        conversation.turns.append(_turn(invoke, children))
    return list(found.values())


def _conversation_id(span: Span, by_id: dict[tuple[str, str], Span]) -> str | None:
    current: Span | None = span
    while current is not None:
        value = current.attributes.get("gen_ai.conversation.id")
        if isinstance(value, str) and value:
            return value
        current = by_id.get((current.trace_id, current.parent)) if current.parent else None
    return None


def _turn(invoke: Span, children: dict[tuple[str, str], list[Span]]) -> Turn:
    attributes = invoke.attributes
    text = _last_text(attributes.get("gen_ai.input.messages"), "user")
    if text is None:
        text = _event_text(invoke, "gen_ai.user.message")
    if text is None:
        raise OtelImportError(
            f"the invoke_agent span {invoke.span_id} of trace {invoke.trace_id} has no user "
            f"message: {CONTENT_HINT}"
        )
    answer = _last_text(attributes.get("gen_ai.output.messages"), "assistant")
    if answer is None:
        answer = _event_text(invoke, "gen_ai.choice")
    tools = [
        _tool(span) for span in _descendants(invoke, children) if span.operation == "execute_tool"
    ]
    error = attributes.get("error.type")
    return Turn(
        input=text,
        answer=answer,
        tools=tools,
        input_tokens=_int(attributes.get("gen_ai.usage.input_tokens")),
        output_tokens=_int(attributes.get("gen_ai.usage.output_tokens")),
        error=str(error) if error else None,
    )


def _descendants(span: Span, children: dict[tuple[str, str], list[Span]]) -> list[Span]:
    found: list[Span] = []
    waiting = list(children.get((span.trace_id, span.span_id), []))
    while waiting:
        child = waiting.pop()
        found.append(child)
        waiting += children.get((child.trace_id, child.span_id), [])
    return sorted(found, key=lambda s: s.start)


def _tool(span: Span) -> ToolCall:
    attributes = span.attributes
    name = _text(attributes.get("gen_ai.tool.name")) or span.name.removeprefix("execute_tool ")
    raw = attributes.get("gen_ai.tool.call.arguments")
    args: dict[str, Any] = {}
    raw_arguments: str | None = None
    if isinstance(raw, str):
        parsed = _json(raw)
        if isinstance(parsed, dict):
            args = parsed
        else:
            raw_arguments = raw
    result = attributes.get("gen_ai.tool.call.result")
    if isinstance(result, str):
        parsed_result = _json(result)
        result = parsed_result if parsed_result is not _NOT_JSON else result
    error = attributes.get("error.type")
    return ToolCall(name, args, raw_arguments, result, str(error) if error else None)


def _last_text(messages: Any, role: str) -> str | None:
    """The text parts of the last `role` message of a `gen_ai.*.messages` value."""
    parsed = _json(messages) if isinstance(messages, str) else messages
    if not isinstance(parsed, list):
        return None
    for message in reversed(parsed):
        if isinstance(message, dict) and message.get("role") == role:
            parts = message.get("parts")
            if isinstance(parts, list):
                texts = [
                    str(part.get("content", ""))
                    for part in parts
                    if isinstance(part, dict) and part.get("type") == "text"
                ]
                return "\n".join(texts) if texts else None
            content = message.get("content")
            return content if isinstance(content, str) else None
    return None


def _event_text(span: Span, event_name: str) -> str | None:
    """Older conventions: the message as a span event (`gen_ai.user.message`: `content`;
    `gen_ai.choice`: `message`)."""
    for name, attributes in reversed(span.events):
        if name != event_name:
            continue
        content = attributes.get("content")
        if isinstance(content, str):
            return content
        message = (
            _json(attributes.get("message")) if isinstance(attributes.get("message"), str) else None
        )
        if isinstance(message, dict) and isinstance(message.get("content"), str):
            return str(message["content"])
    return None


_NOT_JSON = object()


def _json(text: str) -> Any:
    try:
        return json.loads(text)
    except ValueError:
        return _NOT_JSON


def _text(value: Any) -> str | None:
    return value if isinstance(value, str) and value else None


def _int(value: Any) -> int:
    return value if isinstance(value, int) and not isinstance(value, bool) else 0
