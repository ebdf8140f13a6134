"""`run … --baseline NAME`: the run ends with `compare` against a stored run or a report file,
and the comparison decides the exit status (docs/running.md, "Comparing runs")."""

from __future__ import annotations

import sys
from pathlib import Path

from holodeck_lsp.engine.reports.comparison import render_text
from holodeck_lsp.engine.run_comparison import compare_reports
from holodeck_lsp.exit_codes import EXIT_FAILED, EXIT_OK
from holodeck_lsp.runner.compare_sources import SideError, side_named
from holodeck_lsp.runner.progress import TextStream
from holodeck_lsp.schema.comparison import Comparison, RunRef
from holodeck_lsp.schema.results import TestReport
from holodeck_lsp.terminal import Palette

#: Some turn regressed (compare, and run with --baseline).
EXIT_REGRESSED = 1


def status(comparison: Comparison, *, allow_regressions: bool = False) -> int:
    return EXIT_REGRESSED if comparison.has_regressions and not allow_regressions else EXIT_OK


def comparison_with(
    agent: Path, report: TestReport, baseline: str, *, threshold: float
) -> Comparison:
    """This run's report against the named stored run (or report file); `SideError` when
    the baseline cannot be read (its message says why)."""
    try:
        base = side_named(baseline, agent)
        base_report = base.report()
    except SideError as error:
        raise SideError(f"--baseline {baseline}: {error}") from None
    head_ref = RunRef(label="this run", run_id=report.run_id, agent_path=str(agent))
    return compare_reports(
        base_report, report, base_ref=base.ref, head_ref=head_ref, score_threshold=threshold
    )


def print_comparison(comparison: Comparison, *, out: TextStream, palette: Palette) -> int:
    """Prints the comparison to `out` (the run's redacted stdout, so it leaves through the
    same masking as the rest of the run's output); returns compare's exit status."""
    out.write("\n" + render_text(comparison, palette))
    out.flush()
    return status(comparison)


def compare_after_run(
    agent: Path,
    report: TestReport,
    baseline: str,
    *,
    threshold: float,
    out: TextStream,
    palette: Palette,
) -> int:
    """`run --baseline NAME`: compare, print, and return compare's exit status."""
    try:
        comparison = comparison_with(agent, report, baseline, threshold=threshold)
    except SideError as error:
        return _fail(str(error))
    return print_comparison(comparison, out=out, palette=palette)


def _fail(message: str) -> int:
    print(f"holodeck-lsp: error: {message}", file=sys.stderr)
    return EXIT_FAILED
