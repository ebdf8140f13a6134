"""A Claude turn's pieces in SDK terms: the user message with its files as content blocks, the
`ResultMessage.usage` as TokenUsage, a tool result's text, the CLI's stderr for errors."""

from __future__ import annotations

import base64
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

from holodeck_lsp.runner.backends.base import TurnFile
from holodeck_lsp.schema.results import TokenUsage


def stderr_tail(lines: Sequence[str]) -> str:
    tail = [line for line in lines if line.strip()][-5:]
    return ("\nCLI stderr:\n" + "\n".join(tail)) if tail else ""


def usage(raw: Mapping[str, Any] | None) -> TokenUsage | None:
    """`ResultMessage.usage` as TokenUsage; total counts every token the turn processed
    (input, output, cache creation and read), so total >= prompt + completion."""
    if not raw:
        return None

    def count(key: str) -> int:
        value = raw.get(key)
        return value if isinstance(value, int) and value >= 0 else 0

    prompt = count("input_tokens")
    completion = count("output_tokens")
    created = count("cache_creation_input_tokens")
    read = count("cache_read_input_tokens")
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion + created + read,
        cache_creation_tokens=created,
        cache_read_tokens=read,
    )


def result_text(content: str | list[dict[str, Any]] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(str(block.get("text", "")) for block in content if block.get("type") == "text")


async def with_files(message: str, files: Sequence[TurnFile]) -> AsyncIterator[dict[str, Any]]:
    """One user message: the files as content blocks (text inline, images base64), then the
    turn's text."""
    content: list[dict[str, Any]] = []
    for turn_file in files:
        label = turn_file.path.name + (
            f" — {turn_file.description}" if turn_file.description else ""
        )
        if turn_file.kind == "image" and turn_file.data is not None:
            content.append({"type": "text", "text": f"Attached image: {label}"})
            content.append(
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": turn_file.media_type,
                        "data": base64.b64encode(turn_file.data).decode("ascii"),
                    },
                }
            )
        else:
            body = turn_file.text or ""
            content.append({"type": "text", "text": f'<file name="{label}">\n{body}\n</file>'})
    content.append({"type": "text", "text": message})
    yield {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": None,
    }
