"""The report formats, one row each: the flag `run` writes it with, the flag `report` renders it
again with (when it can), and its renderer. `run` and `report` add their options from this table,
write their outputs through it, and the shell completion lists the same flags — a new format is
one row here plus its renderer in reports/run/.

Light on purpose: the renderers are imported when a report is written, not when the table is
read (the completion scripts read it on every Tab).
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from holodeck_lsp.schema.comparison import Comparison
    from holodeck_lsp.schema.results import TestReport


@dataclass(frozen=True, slots=True)
class ReportFormat:
    #: `holodeck-lsp run --report-json FILE`.
    run_flag: str
    #: `holodeck-lsp report RUN --html FILE`; None when `report` does not render it.
    report_flag: str | None
    help: str
    #: The renderer: a module under holodeck_lsp.reports.run and its function.
    module: str
    function: str
    #: The renderer takes the baseline comparison (the HTML page marks regressions).
    takes_comparison: bool = False

    @property
    def run_dest(self) -> str:
        """The attribute argparse stores `run_flag` in."""
        return self.run_flag.lstrip("-").replace("-", "_")

    @property
    def report_dest(self) -> str:
        assert self.report_flag is not None
        return self.report_flag.lstrip("-").replace("-", "_")

    def render(
        self,
        report: TestReport,
        comparison: Comparison | None = None,
        base_report: TestReport | None = None,
    ) -> str:
        """`base_report`: the baseline run itself, when known (the page shows its
        conversations beside this run's)."""
        module = importlib.import_module(f"holodeck_lsp.reports.run.{self.module}")
        renderer = getattr(module, self.function)
        if not self.takes_comparison:
            text: str = renderer(report)
        elif base_report is not None:
            text = renderer(report, comparison, base_report=base_report)
        else:
            text = renderer(report, comparison)
        return text


REPORT_FORMATS: tuple[ReportFormat, ...] = (
    ReportFormat("--report-json", None, "write a JSON report", "json_report", "render"),
    ReportFormat("--report-md", "--md", "write a Markdown report", "markdown", "render"),
    ReportFormat(
        "--report-html", "--html", "write a self-contained HTML report", "html", "render_html",
        takes_comparison=True,
    ),
    ReportFormat("--junit", None, "write a JUnit XML report", "junit", "render"),
)  # fmt: skip
