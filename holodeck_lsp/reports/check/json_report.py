"""Machine-readable output: a stable, versioned JSON document (specified in docs/cli.md).

Positions are 0-based, as in the LSP, so the same numbers work in an editor integration.
Changing a key or a meaning requires bumping `VERSION`; adding keys does not.
"""

from __future__ import annotations

import json
from typing import Any

from holodeck_lsp.checker.diagnostics import Diagnostic, Position
from holodeck_lsp.reports.check.report import Report

VERSION = 1


def render(report: Report) -> str:
    return json.dumps(to_json(report), indent=2, ensure_ascii=False) + "\n"


def to_json(report: Report) -> dict[str, Any]:
    summary = report.summary
    return {
        "version": VERSION,
        "files": [
            {"path": file.path, "diagnostics": [_diagnostic(d) for d in file.diagnostics]}
            for file in report.files
        ],
        "summary": {
            "files": summary.files,
            "errors": summary.errors,
            "warnings": summary.warnings,
        },
    }


def _diagnostic(diagnostic: Diagnostic) -> dict[str, Any]:
    return {
        "severity": diagnostic.severity.label,
        "code": diagnostic.code.value,
        # The editor's one-line text (cause first, short location suffix); `cause` and
        # `where` are its two parts, for tools that lay them out themselves.
        "message": diagnostic.located_message,
        "cause": diagnostic.message,
        "where": diagnostic.location or None,
        "range": {
            "start": _position(diagnostic.range.start),
            "end": _position(diagnostic.range.end),
        },
        "field_path": diagnostic.field_path,
        "test_case": diagnostic.test_case,
        "source": diagnostic.source,
    }


def _position(position: Position) -> dict[str, int]:
    return {"line": position.line, "character": position.character}
