"""The exit status of a finished run from its summary: a failed case (1) wins over an errored
one (4, the provider's weather: not measured), which wins over success (0)."""

from __future__ import annotations

from holodeck_lsp.exit_codes import EXIT_ERRORED, EXIT_OK, EXIT_TEST_FAILED
from holodeck_lsp.schema.results import ReportSummary


def run_status(summary: ReportSummary) -> int:
    if summary.failed:
        return EXIT_TEST_FAILED
    if summary.errored:
        return EXIT_ERRORED
    return EXIT_OK
