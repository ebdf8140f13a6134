"""`holodeck-lsp report RUN|REPORT.json [--html FILE] [--md FILE]`: a stored run (see
runner/run_history: an id, a unique id prefix, a tag, `latest`, `previous`) or a report
written by `run --report-json`, rendered again as an HTML page or Markdown, without running
anything — with neither flag, the Markdown on stdout. See docs/reports.md. An existing file
wins over a run of the same name.

A JSON report from an older holodeck-lsp reads as it is: fields added since then take their
defaults. Fields this version does not know (a newer or foreign writer) are dropped with a
warning naming them, rather than refusing the whole report.

Exit status: 0 written; 2 bad arguments, or a file that is not a JSON report; 3 the output
cannot be written.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from holodeck_lsp.commands._common import fail, warn, write_output
from holodeck_lsp.commands.report_formats import REPORT_FORMATS
from holodeck_lsp.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RUN,
    EXIT_OK,
    REPORT_EXIT_CODES,
    epilog,
)
from holodeck_lsp.schema.comparison import Comparison
from holodeck_lsp.schema.results import TestReport

#: The formats `report` renders a stored report in again (its JSON is the stored report).
RENDERED_AGAIN = tuple(form for form in REPORT_FORMATS if form.report_flag is not None)


def report_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp report",
        description="Render a JSON report (from `run --report-json`) again, without re-running.",
        epilog=epilog(REPORT_EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "report",
        metavar="RUN|REPORT.json",
        help="a stored run (id, id prefix, tag, latest, previous) or a JSON report file",
    )
    parser.add_argument(
        "--agent",
        type=Path,
        default=Path("."),
        metavar="PATH",
        help="where RUN is stored: an agent file, or a folder with the agent files below it "
        "(default: the current folder)",
    )
    for report_format in RENDERED_AGAIN:
        assert report_format.report_flag is not None
        parser.add_argument(
            report_format.report_flag, type=Path, metavar="FILE", help=report_format.help
        )
    parser.add_argument(
        "--baseline",
        metavar="RUN|REPORT.json",
        help="mark the turns that regressed or were fixed against this run on the HTML page",
    )
    return parser


def main(argv: list[str]) -> int:
    parser = report_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    # No format named: the Markdown report on stdout, readable in the terminal it was asked
    # from (docs/reports.md); --html FILE / --md FILE write files instead.
    to_stdout = all(getattr(args, form.report_dest) is None for form in RENDERED_AGAIN)
    report = _stored_or_file(args.report, args.agent)
    if report is None:
        return EXIT_BAD_INPUT
    comparison = base_report = None
    if args.baseline is not None:
        compared = _comparison(args.baseline, args.report, report, args.agent)
        if compared is None:
            return EXIT_BAD_INPUT
        base_report, comparison = compared
    if to_stdout:
        markdown = next(form for form in RENDERED_AGAIN if form.report_flag == "--md")
        sys.stdout.write(markdown.render(report, comparison))
        return EXIT_OK
    for form in RENDERED_AGAIN:
        path = getattr(args, form.report_dest)
        if path is None:
            continue
        # The JSON report was masked when the run wrote it; this command knows no secrets.
        text = form.render(report, comparison, base_report)
        status = write_output(path, text, status_if_not=EXIT_CANNOT_RUN, make_folder=True)
        if status != EXIT_OK:
            return status
    return EXIT_OK


def _comparison(
    baseline: str, head_label: str, report: TestReport, agent: Path
) -> tuple[TestReport, Comparison] | None:
    """The baseline's report and the comparison of `report` against it (a stored run or a
    report file), or None after printing why the baseline cannot be read."""
    from holodeck_lsp.runner.run_history.comparison_sides import (
        SideError,
        baseline_and_comparison,
        looks_like_file,
    )

    if agent.is_dir():  # a stored baseline is one of this report's agent file's runs
        folder = agent
        if not looks_like_file(baseline):  # stored below the folder, as RUN is
            from holodeck_lsp.runner.run_history.which_agent import AgentNotChosen, one_history

            try:
                folder = one_history(agent).agent_dir
            except AgentNotChosen as error:
                fail(EXIT_BAD_INPUT, f"--baseline {baseline}: {error}")
                return None
        agent = folder / Path(report.agent_config_path).name
    try:
        return baseline_and_comparison(
            baseline, report, agent, head_label=head_label,
            head_agent=report.agent_config_path, warn=warn,
        )  # fmt: skip
    except SideError as error:
        fail(EXIT_BAD_INPUT, str(error))
        return None


def _stored_or_file(ref: str, agent: Path) -> TestReport | None:
    path = Path(ref)
    if path.is_file() or ref.endswith(".json"):
        return read_report(path)
    from holodeck_lsp.runner.run_history import RunNotFound, RunUnreadable, resolve
    from holodeck_lsp.runner.run_history.which_agent import AgentNotChosen, one_history

    try:
        history = one_history(agent)
        run = resolve(ref, history.folder, history.agent_file)
        report = run.load_report()
        if run.unfinished:
            from holodeck_lsp.runner.run_history.unfinished import (
                journal_progress,
                resume_command,
            )

            done, total = journal_progress(run.folder)
            warn(
                f"run {run.id} is unfinished ({done}/{total} case sessions finished): the "
                f"report shows only what ran; finish it with `{resume_command(run.id)}`"
            )
        return report
    except (AgentNotChosen, RunNotFound, RunUnreadable) as error:
        fail(EXIT_BAD_INPUT, f"{error} (or pass a JSON report file)")
        return None


def read_report(path: Path) -> TestReport | None:
    """The report in `path`, or None after printing why it cannot be read."""
    from holodeck_lsp.runner.run_history.report_files import ReportUnreadable, read_report_file

    try:
        return read_report_file(path, warn)
    except ReportUnreadable as error:
        fail(EXIT_BAD_INPUT, str(error))
        return None
