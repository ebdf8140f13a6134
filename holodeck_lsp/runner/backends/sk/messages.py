"""A turn in SK's terms and back: the user message with its files, and from the messages SK
added to the history, the answer's text, the tool calls in the model's order and the summed
token usage (the tool-call responses stay in the history with their `usage` metadata)."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from holodeck_lsp.runner.backends.base import TurnFile
from holodeck_lsp.runner.backends.json_values import json_safe
from holodeck_lsp.runner.backends.sk.kernel_functions import CallRecord
from holodeck_lsp.schema.results import CallProblem, TokenUsage, ToolInvocation

if TYPE_CHECKING:
    from semantic_kernel.contents import ChatMessageContent, FunctionCallContent


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
    turn: Sequence[ChatMessageContent],
    calls: Mapping[str, CallRecord],
    is_tool: Callable[[FunctionCallContent], bool],
) -> list[ToolInvocation]:
    """Every call the model made this turn, in the model's order, with what the tool did and
    the argument text exactly as the model sent it.

    A call SK refused to run carries the error result SK gave the model (`error`) and why
    (`call_problem`, docs/running.md "Tool loop"): a name `is_tool` does not know, arguments
    that are not a JSON object, or arguments that do not fit the signature (missing,
    unexpected, or of a type SK could not convert)."""
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
        raw = call.arguments if isinstance(call.arguments, str) else None
        record = calls.get(call.id or "")
        name = call.name or ""
        if record is not None and record.ran:
            invocations.append(
                ToolInvocation(
                    name=name,
                    args=args,
                    result=json_safe(record.result),
                    duration_ms=record.duration_ms,
                    error=record.error,
                    raw_arguments=raw,
                    call_id=call.id,
                )
            )
            continue
        answer = answers.get(call.id or "")
        problem: CallProblem
        if not is_tool(call):
            problem = "unknown_tool"
        elif args_error is not None:
            problem = "invalid_json"
        else:
            problem = "bad_arguments"
        invocations.append(
            ToolInvocation(
                name=name,
                args=args,
                error=str(answer) if answer is not None else "not run: no result was given",
                raw_arguments=raw,
                call_problem=problem,
                call_id=call.id,
            )
        )
    return invocations


def tool_rounds(turn: Sequence[ChatMessageContent]) -> int:
    """Model responses of the turn that asked for tools (each one round of SK's loop)."""
    from semantic_kernel.contents import AuthorRole, FunctionCallContent

    return sum(
        1
        for message in turn
        if message.role == AuthorRole.ASSISTANT
        and any(isinstance(item, FunctionCallContent) for item in message.items)
    )


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
