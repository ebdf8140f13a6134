"""GitHub Actions workflow commands: one `::error …::message` line per diagnostic.

The runner turns each line into an annotation on the file and line of the pull request.
Escaping follows @actions/core: data escapes `%`, CR and LF; property values also `:` and `,`,
which would otherwise end the value. Paths are relative to the current directory (the
workspace, where actions/checkout puts the repository), with forward slashes.
"""

from __future__ import annotations

import os
from pathlib import Path

from holodeck_lsp.checker.diagnostics import Diagnostic, Range, Severity
from holodeck_lsp.reports.check.report import Report, relative_to_root

_COMMANDS = {
    Severity.ERROR: "error",
    Severity.WARNING: "warning",
    Severity.INFORMATION: "notice",
    Severity.HINT: "notice",
}


def render(report: Report, *, cwd: Path | None = None) -> str:
    root = Path.cwd() if cwd is None else cwd
    lines: list[str] = []
    for file in report.files:
        path = relative_to_root(file.path, root) or os.path.realpath(os.path.join(root, file.path))
        lines.extend(format_command(path, diagnostic) for diagnostic in file.diagnostics)
    return "".join(line + "\n" for line in lines)


def format_command(path: str, diagnostic: Diagnostic) -> str:
    properties = ",".join(
        f"{name}={escape_property(str(value))}"
        for name, value in [("file", path), *_span(diagnostic.range), ("title", diagnostic.code)]
    )
    message = escape_data(diagnostic.located_message)  # cause first, short location suffix
    return f"::{_COMMANDS[diagnostic.severity]} {properties}::{message}"


def escape_data(text: str) -> str:
    # `%` first, or the escapes themselves would be escaped again.
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(text: str) -> str:
    return escape_data(text).replace(":", "%3A").replace(",", "%2C")


def _span(range_: Range) -> list[tuple[str, int]]:
    """1-based line/col/endLine/endColumn, the end column inclusive (the last character).

    GitHub honours columns only on a single-line annotation, so a multi-line range reports lines
    alone; a range that stops at the start of a line ends on the line before.
    """
    start, end = range_.start, range_.end
    end_line = end.line - 1 if end.character == 0 and end.line > start.line else end.line
    if end_line != start.line:
        return [("line", start.line + 1), ("endLine", end_line + 1)]
    # LSP's exclusive end is the inclusive 1-based last column; an empty range marks one column.
    end_column = max(end.character, start.character + 1) if end.line == start.line else None
    span = [("line", start.line + 1), ("col", start.character + 1), ("endLine", end_line + 1)]
    if end_column is not None:
        span.append(("endColumn", end_column))
    return span
