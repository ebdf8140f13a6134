"""`holodeck-lsp compare [BASE] [HEAD]`: what changed between two runs, turn by turn — the CI
gate "no new failures against the baseline". See docs/running.md, "Comparing runs".

BASE and HEAD are report files (`run --report-json`) or stored runs of the agent (id, unique
id prefix, tag, `latest`, `previous`); by default the previous and the latest stored run.
`--baseline NAME` is BASE by its tag. Exit status: 0 no regression (or `--allow-regressions`),
1 some turn regressed (not a flaky one; `--gate significant`: the paired test finds head
significantly worse), 2 bad arguments or nothing to compare.

`run … --baseline NAME` ends with the same comparison: commands/run/baseline.py. Reading the
sides (report files, stored runs) and comparing them is runner/run_history/comparison_sides.py.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from holodeck_lsp.commands._common import fail, warn, write_output
from holodeck_lsp.commands.run.baseline import status
from holodeck_lsp.engine.simulator_drift import simulator_differences, simulator_outline
from holodeck_lsp.exit_codes import COMPARE_EXIT_CODES, EXIT_BAD_INPUT, EXIT_OK, epilog
from holodeck_lsp.reports.run.comparison import (
    counts_line,
    render_json,
    render_markdown,
    render_text,
)
from holodeck_lsp.runner.run_history.comparison_sides import (
    Side,
    SideError,
    compared,
    looks_like_file,
    side_named,
    stored_runs,
)
from holodeck_lsp.runner.run_history.flaky_history import with_history_flakiness
from holodeck_lsp.schema.comparison import Comparison
from holodeck_lsp.terminal import COLOR_CHOICES, Palette, wants_color

FORMATS = ("text", "markdown", "json")
#: `--gate`: docs/running.md, "Flaky turns and the significance gate".
GATES = ("any", "significant")


def main(argv: Sequence[str]) -> int:
    parser = _parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    if args.threshold < 0:
        return fail(EXIT_BAD_INPUT, "--threshold is a score difference: 0 or more (e.g. 0.05)")
    try:
        base, head = _sides(args)
    except SideError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    differ = _simulators_differ(base, head)
    for line in differ:
        warn(line + "; the two runs did not talk to the same user")
    if differ and args.strict_simulator:
        return fail(
            EXIT_BAD_INPUT,
            f"--strict-simulator: the simulated users differ in {len(differ)} case(s), so the "
            "runs are not comparable; run both with the same simulated users",
        )
    try:
        comparison = compared(base, head, args.threshold, warn)
    except SideError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    history = _history_agent(args, base, head)
    if history is not None:
        comparison = with_history_flakiness(comparison, history)
    palette = Palette(args.output is None and wants_color(args.color, sys.stdout))
    text = rendered(comparison, args.format, palette)
    if args.output is None:
        sys.stdout.write(text)
    else:
        written = write_output(args.output, text, status_if_not=EXIT_BAD_INPUT, make_folder=True)
        if written != EXIT_OK:
            return written
        print(f"comparison written to {args.output}: {counts_line(comparison)}")
    if args.html is not None:
        written = _write_page(args.html, base, head, comparison)
        if written != EXIT_OK:
            return written
    return status(comparison, allow_regressions=args.allow_regressions, gate=args.gate)


def _write_page(path: Path, base: Side, head: Side, comparison: Comparison) -> int:
    """`--html FILE`: HEAD's report page with the comparison marked and BASE's conversations
    beside HEAD's (docs/reports.md, "Conversation view")."""
    from holodeck_lsp.reports.run.html import render_html

    try:
        page = render_html(head.report(warn), comparison, base_report=base.report(warn))
    except SideError as error:
        return fail(EXIT_BAD_INPUT, str(error))
    written = write_output(path, page, status_if_not=EXIT_BAD_INPUT, make_folder=True)
    if written == EXIT_OK:
        print(f"report page written to {path}: {head.ref.label} with {base.ref.label} beside it")
    return written


def rendered(comparison: Comparison, form: str, palette: Palette) -> str:
    if form == "json":
        return render_json(comparison)
    if form == "markdown":
        return render_markdown(comparison)
    return render_text(comparison, palette)


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
        if count == 1 and not named:
            raise SideError("only one stored run — run again or pass two report files")
        named = named or ["previous"]
        named.append("latest")
    return side_named(named[0], agent), side_named(named[1], agent)


def _simulators_differ(base: Side, head: Side) -> list[str]:
    """The cases whose simulated user (model, prompt fingerprint) differs between the sides;
    a side that cannot be read is left to the comparison to report."""
    try:
        return simulator_differences(*_simulator_data(base, head))
    except (OSError, ValueError, SideError):
        return []


def _simulator_data(base: Side, head: Side) -> tuple[object, object]:
    """Both sides' JSON as far as the simulated users go: decoded to those fields, or parsed
    whole when a file is shaped otherwise (simulator_differences takes anything then)."""
    try:
        return simulator_outline(base.raw()), simulator_outline(head.raw())
    except ValueError:
        return base.data(), head.data()


def _history_agent(args: argparse.Namespace, base: Side, head: Side) -> Path | None:
    """Whose stored runs say which turns are flaky: the agent of a stored side, or --agent;
    two report files alone consult no history (they may come from anywhere)."""
    if base.run is None and head.run is None and args.agent is None:
        return None
    try:
        return _agent(args.agent)
    except SideError:
        return None


def _agent(given: Path | None) -> Path:
    """The agent whose stored runs are meant: the one with stored runs under --agent (a file
    or a folder), else under the current folder (run_history/which_agent.py, which every
    command taking an agent and shell completion ask too)."""
    from holodeck_lsp.runner.run_history.which_agent import AgentNotChosen, NothingStored, one_agent

    try:
        return one_agent(given if given is not None else Path("."))
    except NothingStored as error:
        raise SideError(f"{error} (or pass two report files)") from None
    except AgentNotChosen as error:
        raise SideError(str(error)) from None


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
        help="whose stored runs: an agent file, or a folder with the agent files below it "
        "(default: the current folder)",
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
        "--html",
        type=Path,
        metavar="FILE",
        help="also write HEAD's HTML report with the changes marked and BASE's conversations "
        "beside HEAD's",
    )
    parser.add_argument(
        "--strict-simulator",
        action="store_true",
        help="refuse (exit 2) when a simulated user's model or instructions differ between "
        "the runs, instead of warning",
    )
    parser.add_argument(
        "--gate",
        choices=GATES,
        default="any",
        help="what fails: any turn that regressed (not a flaky one; default), or only a "
        "significant regression — the paired test over the cases says head is worse at p < 0.05",
    )
    parser.add_argument(
        "--allow-regressions",
        action="store_true",
        help="exit 0 even when turns regressed (report only)",
    )
    parser.add_argument(
        "--color", choices=COLOR_CHOICES, default="auto", help="default: auto (a terminal)"
    )
    return parser
