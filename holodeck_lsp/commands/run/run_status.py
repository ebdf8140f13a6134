"""The exit status of a finished run from its summary: a failed case (1) wins over an errored
one (4, the provider's weather: not measured) or a case not run (4: a run stopped early by
Ctrl-C or a budget is not fully measured), which win over success (0). A run a budget
stopped early (`--max-cost`, `--max-turns`) is not fully measured either: 4 unless a case
failed."""

from __future__ import annotations

from holodeck_lsp.exit_codes import EXIT_ERRORED, EXIT_OK, EXIT_TEST_FAILED
from holodeck_lsp.schema.results import ReportSummary


def run_status(summary: ReportSummary, *, stopped_early: bool = False) -> int:
    if summary.failed:
        return EXIT_TEST_FAILED
    # A simulated user that failed leaves its case without a verdict (docs/simulated-users.md).
    if summary.errored or summary.not_run or summary.simulator_failed or stopped_early:
        return EXIT_ERRORED
    return EXIT_OK
