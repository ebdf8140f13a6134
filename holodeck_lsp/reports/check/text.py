"""Human-readable output in the compilers' `path:line:col: severity: message [code]` form.

Lines and columns are 1-based (the column counts Unicode code points), so editors and terminals
that recognise `gcc`-style locations jump straight to the fault. The last line is the summary,
e.g. `2 errors, 1 warning in 3 files`; it goes to the same stream as the diagnostics so a
redirected or `--output` report is complete on its own.
"""

from __future__ import annotations

from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.reports.check.report import Report, Summary
from holodeck_lsp.terminal import PLAIN, Palette


def render(report: Report, palette: Palette = PLAIN) -> str:
    """`palette` colours the severities (on a terminal only: see `holodeck_lsp.terminal`)."""
    lines = [
        format_diagnostic(file.path, diagnostic, palette)
        for file in report.files
        for diagnostic in file.diagnostics
    ]
    lines.append(summary_line(report.summary))
    return "\n".join(lines) + "\n"


def format_diagnostic(path: str, diagnostic: Diagnostic, palette: Palette = PLAIN) -> str:
    start = diagnostic.range.start
    # One diagnostic per line is the format's promise (grep, editors' error parsers), so a
    # multi-line message is folded onto one line; the cause comes first, the full location
    # (test case, turn, tool, arg, field) last, in the same line.
    message = " ".join(diagnostic.check_message.splitlines())
    return (
        f"{path}:{start.line + 1}:{start.character + 1}: "
        f"{palette.severity(diagnostic.severity.label)}: {message} [{diagnostic.code.value}]"
    )


def summary_line(summary: Summary) -> str:
    """`2 errors, 1 warning in 3 files`; information and hints appear only when present."""
    parts = [_count(summary.errors, "error"), _count(summary.warnings, "warning")]
    notes = summary.information + summary.hints
    if notes:
        parts.append(_count(notes, "note"))
    return f"{', '.join(parts)} in {_count(summary.files, 'file')}"


def _count(number: int, noun: str) -> str:
    return f"{number} {noun}" if number == 1 else f"{number} {noun}s"
