"""OTLP JSON — what the OpenTelemetry Collector's file exporter writes (one
`ExportTraceServiceRequest` a line), or one such document — read into plain spans.

Pure apart from the one file read (through checker/file_reading.py).
"""

from __future__ import annotations

import base64
import binascii
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.file_reading import read_file_text


class OtelImportError(Exception):
    """The file cannot be imported; the message leads with the cause and the fix."""


@dataclass(slots=True)
class Span:
    trace_id: str
    span_id: str
    parent: str | None
    name: str
    start: int
    attributes: dict[str, Any]
    events: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    service: str | None = None

    @property
    def operation(self) -> str:
        value = self.attributes.get("gen_ai.operation.name")
        return value if isinstance(value, str) else self.name.split(" ", 1)[0]


def read_spans(path: Path) -> list[Span]:
    try:
        text = read_file_text(path)
    except (OSError, UnicodeDecodeError) as error:
        raise OtelImportError(f"cannot read {path}: {error}") from None
    documents = _documents(text, path)
    spans = [span for document in documents for span in _spans_of(document)]
    if not spans:
        raise OtelImportError(
            f"{path} has no spans: give the OTLP JSON a collector's file exporter writes "
            '(lines of {"resourceSpans": [...]})'
        )
    return spans


def _documents(text: str, path: Path) -> list[Any]:
    stripped = text.strip()
    try:
        return [json.loads(stripped)]
    except ValueError:
        pass
    documents = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            documents.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise OtelImportError(
                f"{path}:{number} is not JSON ({error.msg}): give OTLP JSON, one document a "
                "line or one document"
            ) from None
    return documents


def _spans_of(document: Any) -> list[Span]:
    if not isinstance(document, dict):
        return []
    found: list[Span] = []
    for resource in document.get("resourceSpans") or []:
        attributes = attribute_map(resource.get("resource", {}).get("attributes"))
        service = attributes.get("service.name")
        for scope in (
            resource.get("scopeSpans") or resource.get("instrumentationLibrarySpans") or []
        ):
            for raw in scope.get("spans") or []:
                found.append(
                    Span(
                        trace_id=_hex(raw.get("traceId")),
                        span_id=_hex(raw.get("spanId")),
                        parent=_hex(raw.get("parentSpanId")) or None,
                        name=str(raw.get("name", "")),
                        start=int(raw.get("startTimeUnixNano") or 0),
                        attributes=attribute_map(raw.get("attributes")),
                        events=[
                            (str(e.get("name", "")), attribute_map(e.get("attributes")))
                            for e in raw.get("events") or []
                        ],
                        service=service if isinstance(service, str) else None,
                    )
                )
    return found


def _hex(value: Any) -> str:
    """OTLP JSON ids are hex; protobuf's own JSON mapping writes them in base64."""
    if not isinstance(value, str) or not value:
        return ""
    if len(value) in (16, 32) and all(c in "0123456789abcdefABCDEF" for c in value):
        return value.lower()
    try:
        return base64.b64decode(value, validate=True).hex()
    except (binascii.Error, ValueError):
        return value


def attribute_map(attributes: Any) -> dict[str, Any]:
    if not isinstance(attributes, list):
        return {}
    return {
        str(item.get("key")): _value(item.get("value") or {})
        for item in attributes
        if isinstance(item, dict)
    }


def _value(value: dict[str, Any]) -> Any:
    if "stringValue" in value:
        return value["stringValue"]
    if "intValue" in value:
        return int(value["intValue"])
    if "doubleValue" in value:
        return float(value["doubleValue"])
    if "boolValue" in value:
        return bool(value["boolValue"])
    if "arrayValue" in value:
        return [_value(v) for v in (value["arrayValue"] or {}).get("values") or []]
    return None
