"""OTLP JSON traces written by hand, as another GenAI instrumentation records a production
conversation (for `import otel`'s tests)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TRACE_ID = "5b8efff798038103d269b633813fc60c"
CONVERSATION = "conv-7f1e2d"


def _attr(key: str, value: Any) -> dict[str, Any]:
    if isinstance(value, bool):
        return {"key": key, "value": {"boolValue": value}}
    if isinstance(value, int):
        return {"key": key, "value": {"intValue": str(value)}}
    return {"key": key, "value": {"stringValue": value}}


def _span(
    span_id: str, parent: str | None, name: str, start: int, **attributes: Any
) -> dict[str, Any]:
    span: dict[str, Any] = {
        "traceId": TRACE_ID,
        "spanId": span_id,
        "name": name,
        "kind": 3,
        "startTimeUnixNano": str(start),
        "endTimeUnixNano": str(start + 1000),
        "attributes": [_attr(k.replace("__", "."), v) for k, v in attributes.items()],
    }
    if parent:
        span["parentSpanId"] = parent
    return span


def _messages(role: str, text: str) -> str:
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}])


def production_trace(path: Path) -> Path:
    """Two turns of a support agent (one tool call), one document a line as a collector's
    file exporter writes them (here: one line per turn)."""
    first = [
        _span("1000000000000001", None, "invoke_agent support", 100,
              gen_ai__operation__name="invoke_agent", gen_ai__agent__name="support",
              gen_ai__provider__name="anthropic", gen_ai__request__model="claude-sonnet-4-5",
              gen_ai__conversation__id=CONVERSATION,
              gen_ai__input__messages=_messages("user", "Where is order 42?"),
              gen_ai__output__messages=_messages("assistant", "Order 42 shipped on Monday.")),
        _span("1000000000000002", "1000000000000001", "execute_tool order_status", 200,
              gen_ai__operation__name="execute_tool", gen_ai__tool__name="order_status",
              gen_ai__tool__call__id="toolu_01",
              gen_ai__tool__call__arguments='{"order_id": 42}',
              gen_ai__tool__call__result='{"status": "shipped"}'),
    ]  # fmt: skip
    second = [
        _span("1000000000000003", None, "invoke_agent support", 300,
              gen_ai__operation__name="invoke_agent", gen_ai__agent__name="support",
              gen_ai__provider__name="anthropic", gen_ai__request__model="claude-sonnet-4-5",
              gen_ai__conversation__id=CONVERSATION,
              gen_ai__input__messages=_messages("user", "Thanks!"),
              gen_ai__output__messages=_messages("assistant", "You're welcome.")),
    ]  # fmt: skip
    resource = {"attributes": [_attr("service.name", "support-prod")]}
    lines = [
        json.dumps({"resourceSpans": [{"resource": resource, "scopeSpans": [{"spans": spans}]}]})
        for spans in (first, second)
    ]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
