"""Our `Diagnostic` as the JSON of an LSP diagnostic, without lsprotocol: the server converts
this to its protocol type (`conversion.to_lsp`), and the diagnostics published before pygls is
imported (`server/early_diagnostics.py`) are written from it directly — one shape for both."""

from __future__ import annotations

from typing import Any

from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.server.documents.positions import PositionConverter


def diagnostic_json(diagnostic: Diagnostic, converter: PositionConverter) -> dict[str, Any]:
    start, end = diagnostic.range.start, diagnostic.range.end
    start_line, start_char = converter.to_client(start.line, start.character)
    end_line, end_char = converter.to_client(end.line, end.character)
    if (end_line, end_char) < (start_line, start_char):
        end_line, end_char = start_line, start_char
    # Quick fixes read these back: where in the agent the fault is, and any suggestion.
    # `where` is the full location text; the message carries only its short form, after
    # the cause (checker/located.py says why).
    data: dict[str, str | None] = {
        "field_path": diagnostic.field_path,
        "test_case": diagnostic.test_case,
        "where": diagnostic.location or None,
        **diagnostic.data,
    }
    return {
        "range": {
            "start": {"line": start_line, "character": start_char},
            "end": {"line": end_line, "character": end_char},
        },
        "message": diagnostic.located_message,
        "severity": int(diagnostic.severity),
        "code": diagnostic.code.value,
        "source": diagnostic.source,
        "data": data,
    }
