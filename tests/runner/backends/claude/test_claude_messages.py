"""A Claude turn's pieces in SDK terms (runner/backends/claude/messages.py): the user message
with its files, the result's usage, a tool result's text, the CLI's stderr tail."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

from holodeck_lsp.runner.backends.base import TurnFile
from holodeck_lsp.runner.backends.claude.messages import (
    result_text,
    stderr_tail,
    usage,
    with_files,
)
from holodeck_lsp.schema.results import TokenUsage


async def test_with_files_sends_one_user_message_files_first() -> None:
    files = [
        TurnFile(Path("/a/notes.txt"), "text", "text/plain", text="hello", description="notes"),
        TurnFile(Path("/a/chart.png"), "image", "image/png", data=b"\x89PNG"),
    ]
    messages: list[dict[str, Any]] = [m async for m in with_files("What is shown?", files)]
    [message] = messages
    assert message["type"] == "user" and message["parent_tool_use_id"] is None
    content = message["message"]["content"]
    assert content == [
        {"type": "text", "text": '<file name="notes.txt — notes">\nhello\n</file>'},
        {"type": "text", "text": "Attached image: chart.png"},
        {
            "type": "image",
            "source": {
                "type": "base64",
                "media_type": "image/png",
                "data": base64.b64encode(b"\x89PNG").decode("ascii"),
            },
        },
        {"type": "text", "text": "What is shown?"},
    ]


def test_usage_counts_cache_tokens_in_the_total() -> None:
    raw = {
        "input_tokens": 10,
        "output_tokens": 5,
        "cache_creation_input_tokens": 100,
        "cache_read_input_tokens": 1000,
        "server_tool_use": {"web_search_requests": 0},
    }
    assert usage(raw) == TokenUsage(
        prompt_tokens=10,
        completion_tokens=5,
        total_tokens=1115,
        cache_creation_tokens=100,
        cache_read_tokens=1000,
    )
    assert usage({"input_tokens": -3, "output_tokens": "7"}) == TokenUsage(
        prompt_tokens=0, completion_tokens=0, total_tokens=0
    )
    assert usage(None) is None and usage({}) is None


def test_result_text_keeps_only_text_blocks() -> None:
    assert result_text(None) == ""
    assert result_text("6") == "6"
    blocks = [
        {"type": "text", "text": "a"},
        {"type": "image", "source": {}},
        {"type": "text", "text": "b"},
    ]
    assert result_text(blocks) == "a\nb"


def test_stderr_tail_keeps_the_last_five_lines_that_say_something() -> None:
    lines = [f"line {n}" for n in range(8)] + ["", "  "]
    assert stderr_tail(lines) == "\nCLI stderr:\n" + "\n".join(f"line {n}" for n in range(3, 8))
    assert stderr_tail(["", " "]) == ""
