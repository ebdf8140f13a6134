"""Our `Diagnostic` as an LSP diagnostic, and content-derived result ids for pull reports."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from lsprotocol import types

from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.server.documents.positions import PositionConverter
from holodeck_lsp.server.features.diagnostics.lsp_json import diagnostic_json


def to_lsp(diagnostic: Diagnostic, converter: PositionConverter) -> types.Diagnostic:
    fields = diagnostic_json(diagnostic, converter)
    start, end = fields["range"]["start"], fields["range"]["end"]
    return types.Diagnostic(
        range=types.Range(
            types.Position(start["line"], start["character"]),
            types.Position(end["line"], end["character"]),
        ),
        message=fields["message"],
        severity=types.DiagnosticSeverity(fields["severity"]),
        code=fields["code"],
        source=fields["source"],
        data=fields["data"],
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
