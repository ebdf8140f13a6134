"""`holodeck-lsp compare [BASE] [HEAD]`: what changed between two runs, turn by turn — the CI
gate "no new failures against the baseline". See docs/running.md, "Comparing runs".

BASE and HEAD are report files (`run --report-json`) or stored runs of the agent (id, unique
id prefix, tag, `latest`, `previous`); by default the previous and the latest stored run.
`--baseline NAME` is BASE by its tag. Exit status: 0 no regression (or `--allow-regressions`),
1 some turn regressed, 2 bad arguments or nothing to compare.

`run … --baseline NAME` ends with the same comparison: `compare_after_run` below.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.commands.compare_sources import (
    Side,
    SideError,
    looks_like_file,
    report_side,
    stored_runs,
    stored_side,
)
from holodeck_lsp.config.gc_pause import gc_paused
from holodeck_lsp.engine.reports.comparison import (
    counts_line,
    render_json,
    render_markdown,
    render_text,
)
from holodeck_lsp.engine.run_comparison import compare_report_data, compare_reports
from holodeck_lsp.exit_codes import EXIT_FAILED, EXIT_OK, epilog
from holodeck_lsp.schema.comparison import Comparison, RunRef
from holodeck_lsp.terminal import COLOR_CHOICES, Palette, wants_color

if TYPE_CHECKING:
    from holodeck_lsp.runner.progress import TextStream
    from holodeck_lsp.schema.results import TestReport

EXIT_REGRESSED = 1
COMPARE_EXIT_CODES = (
    (EXIT_OK, "no turn regressed (or --allow-regressions)"),
    (EXIT_REGRESSED, "some turn regressed: passed (or passed more often) in BASE, fails in HEAD"),
    (EXIT_FAILED, "bad arguments, an unreadable side, or nothing to compare"),
)
FORMATS = ("text", "markdown", "json")


def main(argv: Sequence[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_FAILED
    if args.threshold < 0:
        return _fail("--threshold is a score difference: 0 or more (e.g. 0.05)")
    try:
        base, head = _sides(args)
    except SideError as error:
        return _fail(str(error))
    try:
        comparison = compared(base, head, args.threshold)
    except SideError as error:
        return _fail(str(error))
    palette = Palette(args.output is None and wants_color(args.color, sys.stdout))
    text = rendered(comparison, args.format, palette)
    if args.output is None:
        sys.stdout.write(text)
    else:
        try:
            args.output.parent.mkdir(parents=True, exist_ok=True)
            args.output.write_text(text, encoding="utf-8")
        except OSError as error:
            return _fail(f"cannot write {args.output}: {error.strerror or error}")
        print(f"comparison written to {args.output}: {counts_line(comparison)}")
    return status(comparison, allow_regressions=args.allow_regressions)


def compared(base: Side, head: Side, threshold: float) -> Comparison:
    """The fast path over both files' JSON; the validating one when a file is not shaped
    like a report (its reader then says why, or reads it after all: an older report)."""
    # Two parsed reports are a million live objects: a collector pass would walk them all
    # again for nothing (it took over half the time), so it waits until the comparison ends.
    with gc_paused():
        return _compared(base, head, threshold)


def _compared(base: Side, head: Side, threshold: float) -> Comparison:
    try:
        return compare_report_data(
            base.data(), head.data(), base_ref=base.ref, head_ref=head.ref,
            score_threshold=threshold,
        )  # fmt: skip
    except (OSError, ValueError):  # not JSON, ReportDataError, a failing turn's ValidationError
        return compare_reports(
            base.report(), head.report(), base_ref=base.ref, head_ref=head.ref,
            score_threshold=threshold,
        )  # fmt: skip


def rendered(comparison: Comparison, form: str, palette: Palette) -> str:
    if form == "json":
        return render_json(comparison)
    if form == "markdown":
        return render_markdown(comparison)
    return render_text(comparison, palette)


def status(comparison: Comparison, *, allow_regressions: bool = False) -> int:
    return EXIT_REGRESSED if comparison.has_regressions and not allow_regressions else EXIT_OK


def _sides(args: argparse.Namespace) -> tuple[Side, Side]:
    named: list[str] = list(args.runs)
    if args.baseline is not None:
        if len(named) > 1:
            raise SideError("--baseline names BASE: give at most one more run (HEAD), not two")
        named = [args.baseline, *named]
    needs_history = len(named) < 2 or not all(looks_like_file(name) for name in named)
    agent = _agent(args.agent) if needs_history else None
    if len(named) < 2:
        assert agent is not None
        count = len(stored_runs(agent))
        if count == 0:
            raise SideError(
                f"no stored runs of {agent} yet — run `holodeck-lsp run {agent}` twice, "
                "or pass two report files"
            )
        if count == 1 and not named:
            raise SideError("only one stored run — run again or pass two report files")
        named = named or ["previous"]
        named.append("latest")
    return _side(named[0], agent), _side(named[1], agent)


def _side(name: str, agent: Path | None) -> Side:
    if looks_like_file(name):
        return report_side(name)
    assert agent is not None
    return stored_side(name, agent)


def _agent(given: Path | None) -> Path:
    """The agent whose stored runs are meant: --agent, else the one agent file in the current
    folder (its run history sits beside it)."""
    from holodeck_lsp.config.discovery import AGENT_SUFFIX, is_agent_file

    if given is not None:
        if not given.is_file():
            raise SideError(f"--agent {given}: no such agent file")
        return given
    here = sorted(Path(p.name) for p in Path.cwd().iterdir() if is_agent_file(p.name))
    if len(here) == 1:
        return here[0]
    if not here:
        raise SideError(
            "no agent file in this folder to take stored runs from: pass --agent PATH, "
            f"or two report files (agent.yaml or *{AGENT_SUFFIX} are looked for)"
        )
    names = ", ".join(path.name for path in here)
    raise SideError(f"several agent files here ({names}): choose one with --agent PATH")


def compare_after_run(
    agent: Path,
    report: TestReport,
    baseline: str,
    *,
    threshold: float,
    out: TextStream,
    palette: Palette,
) -> int:
    """`run --baseline NAME`: this run's report against the named stored run (or report
    file). `out` is the run's redacted stdout, so the comparison leaves through the same
    masking as the rest of the run's output. Returns compare's exit status."""
    try:
        base = _side(baseline, agent)
    except SideError as error:
        return _fail(f"--baseline {baseline}: {error}")
    head_ref = RunRef(label="this run", run_id=report.run_id, agent_path=str(agent))
    try:
        base_report = base.report()
    except SideError as error:
        return _fail(f"--baseline {baseline}: {error}")
    comparison = compare_reports(
        base_report, report, base_ref=base.ref, head_ref=head_ref, score_threshold=threshold
    )
    out.write("\n" + render_text(comparison, palette))
    out.flush()
    return status(comparison)


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp compare",
        description="What changed between two runs, turn by turn: regressions, fixes, new "
        "failure reasons, score moves, edited / added / removed / not-run turns "
        "(see docs/running.md, 'Comparing runs').",
        epilog=epilog(COMPARE_EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "runs",
        nargs="*",
        metavar="BASE HEAD",
        help="report files (run --report-json) or stored runs: id, id prefix, tag, latest, "
        "previous (default: previous latest; one given: it against latest)",
    )
    parser.add_argument(
        "--baseline",
        metavar="NAME",
        help="BASE is the stored run tagged NAME (holodeck-lsp runs --tag) or a report file",
    )
    parser.add_argument(
        "--agent",
        type=Path,
        metavar="PATH",
        help="whose stored runs (default: the agent file in the current folder)",
    )
    parser.add_argument("--format", choices=FORMATS, default="text", help="default: text")
    parser.add_argument(
        "--threshold",
        type=float,
        default=0.05,
        metavar="X",
        help="list a metric's score change larger than X (default 0.05)",
    )
    parser.add_argument("--output", type=Path, metavar="FILE", help="write it to FILE")
    parser.add_argument(
        "--allow-regressions",
        action="store_true",
        help="exit 0 even when turns regressed (report only)",
    )
    parser.add_argument(
        "--color", choices=COLOR_CHOICES, default="auto", help="default: auto (a terminal)"
    )
    return parser


def _fail(message: str) -> int:
    print(f"holodeck-lsp: error: {message}", file=sys.stderr)
    return EXIT_FAILED
