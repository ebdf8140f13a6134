"""Message content in the conventions' JSON form, recorded only with the content opt-in
(`capture_content: true` or OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true;
docs/observability.md, "Content")."""

from __future__ import annotations

import json
from typing import Any


def input_messages(text: str) -> str:
    return json.dumps([{"role": "user", "parts": [{"type": "text", "content": text}]}])


def output_messages(text: str) -> str:
    message = {
        "role": "assistant",
        "parts": [{"type": "text", "content": text}],
        "finish_reason": "stop",
    }
    return json.dumps([message])


def json_text(value: Any) -> str:
    """A tool's arguments or result as the conventions record them (a JSON string)."""
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value, ensure_ascii=False, default=str)
    except (TypeError, ValueError):
        return str(value)
