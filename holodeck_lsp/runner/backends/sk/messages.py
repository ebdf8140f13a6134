"""A turn in SK's terms and back: the user message with its files, and from the messages SK
added to the history, the answer's text, the tool calls in the model's order and the summed
token usage (the tool-call responses stay in the history with their `usage` metadata)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from holodeck_lsp.runner.backends.base import TurnFile
from holodeck_lsp.runner.backends.json_values import json_safe
from holodeck_lsp.runner.backends.sk.kernel_functions import CallRecord
from holodeck_lsp.schema.results import TokenUsage, ToolInvocation

if TYPE_CHECKING:
    from semantic_kernel.contents import ChatMessageContent


def user_message(message: str, files: Sequence[TurnFile]) -> ChatMessageContent:
    """The turn's text, then each text file as its own text block, images as image parts."""
    from semantic_kernel.contents import (
        AuthorRole,
        ChatMessageContent,
        ImageContent,
        TextContent,
    )

    items: list[Any] = [TextContent(text=message)]
    for file in files:
        label = f"File {file.path.name}" + (f" ({file.description})" if file.description else "")
        if file.kind == "image" and file.data is not None:
            items.append(TextContent(text=f"{label}:"))
            items.append(
                ImageContent(data=file.data, data_format="base64", mime_type=file.media_type)
            )
        else:
            items.append(TextContent(text=f"{label}:\n{file.text or ''}"))
    return ChatMessageContent(role=AuthorRole.USER, items=items)


def text_of(message: ChatMessageContent) -> str:
    from semantic_kernel.contents import TextContent

    return "".join(item.text for item in message.items if isinstance(item, TextContent))


def invocations(
    turn: Sequence[ChatMessageContent], calls: Mapping[str, CallRecord]
) -> list[ToolInvocation]:
    """Every call the model made this turn, in order, with what the tool did.

    A call SK refused to run (unknown tool, missing or malformed arguments) has no result and
    carries SK's reason, which the model was sent, as its error."""
    from semantic_kernel.contents import FunctionCallContent, FunctionResultContent

    requested: list[FunctionCallContent] = []
    answers: dict[str, Any] = {}
    for message in turn:
        for item in message.items:
            if isinstance(item, FunctionCallContent):
                requested.append(item)
            elif isinstance(item, FunctionResultContent) and item.id is not None:
                answers[item.id] = item.result
    invocations: list[ToolInvocation] = []
    for call in requested:
        args, args_error = _arguments(call.arguments)
        record = calls.get(call.id or "")
        if record is not None and record.ran:
            invocations.append(
                ToolInvocation(
                    name=call.name or "",
                    args=args,
                    result=json_safe(record.result),
                    duration_ms=record.duration_ms,
                    error=record.error,
                )
            )
        else:
            reason = answers.get(call.id or "")
            invocations.append(
                ToolInvocation(
                    name=call.name or "",
                    args=args,
                    error=args_error or (f"not run: {reason}" if reason else "not run"),
                )
            )
    return invocations


def _arguments(raw: str | Mapping[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    if raw is None or raw == "":
        return {}, None
    if isinstance(raw, Mapping):
        return dict(raw), None
    try:
        parsed = json.loads(raw)
    except ValueError as error:
        return {}, f"malformed arguments {raw!r}: {error}"
    if not isinstance(parsed, dict):
        return {}, f"arguments are not a JSON object: {raw!r}"
    return parsed, None


def usage(messages: Sequence[ChatMessageContent]) -> TokenUsage | None:
    """Sum of the `usage` metadata of every model response in the turn (None if none had it)."""
    total: TokenUsage | None = None
    for message in messages:
        usage = message.metadata.get("usage") if message.metadata else None
        if usage is None:
            continue
        prompt = int(getattr(usage, "prompt_tokens", None) or 0)
        completion = int(getattr(usage, "completion_tokens", None) or 0)
        details = getattr(usage, "prompt_tokens_details", None)
        cached = int(getattr(details, "cached_tokens", None) or 0)
        part = TokenUsage(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=prompt + completion,
            cache_read_tokens=cached,
        )
        total = part if total is None else total + part
    return total
