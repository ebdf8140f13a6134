"""The result of `holodeck-lsp --check`, and its rendering in the four output formats.

A check yields, per checked file, the diagnostics `load_agent_file` returned. Those may lie in
other documents (a `test_cases_file` include reports in its own file), so `build_report` regroups
every diagnostic under the file it is in, sorts files and positions, and counts them. The
renderers (`text`, `json_report`, `sarif`, `github`) only format a `Report`; none of them
re-sorts or re-groups, so all formats list the same files in the same order.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from holodeck_lsp.reports.check import github, json_report, sarif, text
from holodeck_lsp.reports.check.report import (
    Checked,
    FileReport,
    Report,
    Summary,
    build_report,
    relative_to_root,
)
from holodeck_lsp.terminal import PLAIN, Palette

__all__ = [
    "FORMATS",
    "Checked",
    "FileReport",
    "Format",
    "Report",
    "Summary",
    "build_report",
    "relative_to_root",
    "render",
]

Format = Literal["text", "json", "sarif", "github"]
FORMATS: tuple[Format, ...] = ("text", "json", "sarif", "github")


def render(
    report: Report, fmt: Format, *, cwd: Path | None = None, palette: Palette | None = None
) -> str:
    """The report in `fmt`; `cwd` is the root SARIF and GitHub paths are made relative to;
    `palette` colours the text format (the machine formats are never coloured)."""
    if fmt == "text":
        return text.render(report, palette or PLAIN)
    if fmt == "json":
        return json_report.render(report)
    if fmt == "sarif":
        return sarif.render(report, cwd=cwd)
    if fmt == "github":
        return github.render(report, cwd=cwd)
    raise ValueError(f"unknown format {fmt!r}; expected one of {', '.join(FORMATS)}")
