"""The two wire formats the oracle speaks: OpenAI chat completions (Semantic Kernel: openai,
ollama, azure_openai) and Anthropic messages (the Claude Agent SDK's CLI, which streams). Each
reads a request into the oracle's events (oracle_plan.py) and writes its next step back.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Mapping
from typing import Any

from oracle_plan import Answer, CallTool, Event, ToolCalled, ToolReturned, UserText

MODEL_NAME = "convfinqa-oracle"


def _texts(content: Any, kind: str = "text") -> list[str]:
    if isinstance(content, str):
        return [content] if kind == "text" else []
    if isinstance(content, list):
        return [
            part.get("text", "")
            for part in content
            if isinstance(part, dict) and part.get("type") == kind
        ]
    return []


def _tokens(value: Any) -> int:
    return max(1, len(json.dumps(value)) // 4)  # a rough count; nobody bills the oracle


# ----------------------------------------------------------------------------- OpenAI


def openai_events(body: Mapping[str, Any]) -> tuple[list[Event], list[str]]:
    events: list[Event] = []
    for message in body.get("messages") or []:
        role = message.get("role")
        if role == "user":
            events += [UserText(text) for text in _texts(message.get("content"))]
        elif role == "assistant":
            events += [ToolCalled(str(call.get("id"))) for call in message.get("tool_calls") or []]
        elif role == "tool":
            events.append(ToolReturned(str(message.get("tool_call_id")), message.get("content")))
    tools = [t["function"]["name"] for t in body.get("tools") or [] if "function" in t]
    return events, tools


def openai_reply(step: CallTool | Answer, body: Mapping[str, Any]) -> dict[str, Any]:
    if isinstance(step, CallTool):
        function = {"name": step.name, "arguments": json.dumps(step.args)}
        message: dict[str, Any] = {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": step.id, "type": "function", "function": function}],
        }
    else:
        message = {"role": "assistant", "content": step.text}
    prompt, completion = _tokens(body.get("messages")), _tokens(message)
    return {
        "id": "chatcmpl-oracle",
        "object": "chat.completion",
        "created": 0,
        "model": str(body.get("model") or MODEL_NAME),
        "choices": [
            {
                "index": 0,
                "message": message,
                "finish_reason": "tool_calls" if isinstance(step, CallTool) else "stop",
                "logprobs": None,
            }
        ],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def openai_error(message: str) -> dict[str, Any]:
    return {"error": {"message": message, "type": "invalid_request_error"}}


# ----------------------------------------------------------------------------- Anthropic


def is_conversation(body: Mapping[str, Any]) -> bool:
    """The Claude CLI also sends one-token probes and small side requests without tools (a
    title, a quota check): those are answered "ok", not as a dialogue turn."""
    return bool(body.get("tools")) and int(body.get("max_tokens") or 2) > 1


def anthropic_events(body: Mapping[str, Any]) -> tuple[list[Event], list[str]]:
    events: list[Event] = []
    for message in body.get("messages") or []:
        content = message.get("content")
        if isinstance(content, str):
            content = [{"type": "text", "text": content}]
        for block in content if isinstance(content, list) else []:
            kind = block.get("type") if isinstance(block, dict) else None
            if kind == "tool_use":
                events.append(ToolCalled(str(block.get("id"))))
            elif kind == "tool_result":
                inner = block.get("content")
                # the result's first text part (the CLI may append a reminder part)
                parts = [inner] if isinstance(inner, str) else _texts(inner)
                result = parts[0] if parts else ""
                events.append(ToolReturned(str(block.get("tool_use_id")), result))
            elif kind == "text" and message.get("role") == "user":
                events.append(UserText(str(block.get("text", ""))))
    tools = [str(t.get("name")) for t in body.get("tools") or [] if isinstance(t, dict)]
    return events, tools


def anthropic_message(step: CallTool | Answer | str, body: Mapping[str, Any]) -> dict[str, Any]:
    """The whole assistant message; a plain `str` is a side request's short answer."""
    if isinstance(step, CallTool):
        content = [{"type": "tool_use", "id": step.id, "name": step.name, "input": step.args}]
        stop = "tool_use"
    else:
        content = [{"type": "text", "text": step.text if isinstance(step, Answer) else step}]
        stop = "end_turn"
    return {
        "id": "msg_oracle",
        "type": "message",
        "role": "assistant",
        "model": str(body.get("model") or MODEL_NAME),
        "content": content,
        "stop_reason": stop,
        "stop_sequence": None,
        "usage": {"input_tokens": _tokens(body.get("messages")), "output_tokens": _tokens(content)},
    }


def anthropic_stream(message: Mapping[str, Any]) -> Iterator[bytes]:
    """The same message as server-sent events, the way the Messages API streams."""

    def event(name: str, data: Mapping[str, Any]) -> bytes:
        return f"event: {name}\ndata: {json.dumps({'type': name, **data})}\n\n".encode()

    usage = message["usage"]
    start = {**message, "content": [], "stop_reason": None, "usage": {**usage, "output_tokens": 1}}
    yield event("message_start", {"message": start})
    for index, block in enumerate(message["content"]):
        if block["type"] == "text":
            empty = {"type": "text", "text": ""}
            yield event("content_block_start", {"index": index, "content_block": empty})
            delta = {"type": "text_delta", "text": block["text"]}
        else:
            empty = {**block, "input": {}}
            yield event("content_block_start", {"index": index, "content_block": empty})
            delta = {"type": "input_json_delta", "partial_json": json.dumps(block["input"])}
        yield event("content_block_delta", {"index": index, "delta": delta})
        yield event("content_block_stop", {"index": index})
    yield event(
        "message_delta",
        {"delta": {"stop_reason": message["stop_reason"], "stop_sequence": None}, "usage": usage},
    )
    yield event("message_stop", {})


def anthropic_error(message: str) -> dict[str, Any]:
    return {"type": "error", "error": {"type": "invalid_request_error", "message": message}}
