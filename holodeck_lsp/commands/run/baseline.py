"""`run … --baseline NAME`: the run ends with `compare` against a stored run or a report file,
and the comparison decides the exit status (docs/running.md, "Comparing runs")."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.commands._common import warn
from holodeck_lsp.exit_codes import EXIT_OK, EXIT_REGRESSED

if TYPE_CHECKING:
    # Every run imports this module, few pass --baseline: comparing (stored runs, msgspec,
    # the comparison's models) is imported by the functions below when they run
    # (docs/benchmarks.md, "Start-up cost, issue 37 item 7").
    from holodeck_lsp.commands.console.text_stream import TextStream
    from holodeck_lsp.schema.comparison import Comparison
    from holodeck_lsp.schema.results import TestReport
    from holodeck_lsp.terminal import Palette

#: How a comparison names the run that just ended.
THIS_RUN = "this run"


def status(comparison: Comparison, *, allow_regressions: bool = False, gate: str = "any") -> int:
    """`gate="any"`: any turn that regressed and is not flaky; `"significant"`: only a
    regression the paired test finds significant (docs/running.md, "Flaky turns and the
    significance gate")."""
    if allow_regressions:
        return EXIT_OK
    if gate == "significant":
        return EXIT_REGRESSED if comparison.has_significant_regression else EXIT_OK
    return EXIT_REGRESSED if comparison.has_regressions else EXIT_OK


def print_comparison(comparison: Comparison, *, out: TextStream, palette: Palette) -> int:
    """Prints the comparison to `out` (the run's redacted stdout, so it leaves through the
    same masking as the rest of the run's output); returns compare's exit status."""
    from holodeck_lsp.reports.run.comparison import render_text  # see the TYPE_CHECKING block

    out.write("\n" + render_text(comparison, palette))
    out.flush()
    return status(comparison)


def baseline_comparison(
    baseline: str | None, agent: Path, report: TestReport
) -> tuple[Comparison | None, str | None]:
    """`--baseline NAME`: the comparison (for the HTML page and the end of the run), or why
    the baseline cannot be read."""
    if baseline is None:
        return None, None
    # Imported here: see the TYPE_CHECKING block.
    from holodeck_lsp.runner.run_history.comparison_sides import SideError, comparison_with

    try:
        comparison = comparison_with(baseline, report, agent, head_label=THIS_RUN, warn=warn)
    except SideError as error:
        return None, str(error)
    return comparison, None
