"""Our `Diagnostic` as an LSP diagnostic, and content-derived result ids for pull reports."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from lsprotocol import types

from holodeck_lsp.config.diagnostics import Diagnostic
from holodeck_lsp.server.documents.positions import PositionConverter


def to_lsp(diagnostic: Diagnostic, converter: PositionConverter) -> types.Diagnostic:
    start, end = diagnostic.range.start, diagnostic.range.end
    start_line, start_char = converter.to_client(start.line, start.character)
    end_line, end_char = converter.to_client(end.line, end.character)
    if (end_line, end_char) < (start_line, start_char):
        end_line, end_char = start_line, start_char
    # Quick fixes read these back: where in the agent the fault is, and any suggestion.
    # `where` is the full location text; the message carries only its short form, after
    # the cause (config/located.py says why).
    data: dict[str, str | None] = {
        "field_path": diagnostic.field_path,
        "test_case": diagnostic.test_case,
        "where": diagnostic.location or None,
        **diagnostic.data,
    }
    return types.Diagnostic(
        range=types.Range(
            types.Position(start_line, start_char), types.Position(end_line, end_char)
        ),
        message=diagnostic.located_message,
        severity=types.DiagnosticSeverity(int(diagnostic.severity)),
        code=diagnostic.code.value,
        source=diagnostic.source,
        data=data,
    )


def result_id(items: Sequence[types.Diagnostic]) -> str:
    """Equal diagnostics, equal id: an unchanged report is then exactly "same content"."""
    digest = hashlib.blake2b(digest_size=12)
    for item in items:
        r = item.range
        digest.update(
            repr(
                (
                    r.start.line,
                    r.start.character,
                    r.end.line,
                    r.end.character,
                    item.severity,
                    item.code,
                    item.message,
                    sorted((item.data or {}).items()),
                )
            ).encode()
        )
    return digest.hexdigest()
