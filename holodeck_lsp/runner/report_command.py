"""`holodeck-lsp report RUN|REPORT.json --html FILE`: a stored run (see runner/run_history:
an id, a unique id prefix, a tag, `latest`, `previous`) or a report written by
`run --report-json`, rendered again as an HTML page, without running anything. See
docs/reports.md. An existing file wins over a run of the same name.

A JSON report from an older holodeck-lsp reads as it is: fields added since then take their
defaults. Fields this version does not know (a newer or foreign writer) are dropped with a
warning naming them, rather than refusing the whole report.

Exit status: 0 written; 2 bad arguments, or a file that is not a JSON report; 3 the output
cannot be written.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from holodeck_lsp.engine.reports import html, markdown
from holodeck_lsp.schema.comparison import Comparison, RunRef
from holodeck_lsp.schema.results import TestReport

EXIT_OK = 0
EXIT_BAD_INPUT = 2
EXIT_CANNOT_WRITE = 3
#: Problems of an unreadable report shown before "and N more".
_SHOWN_PROBLEMS = 5


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp report",
        description="Render a JSON report (from `run --report-json`) again, without re-running.",
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
        help="where RUN is stored: an agent file or its folder (default: the current folder)",
    )
    parser.add_argument("--html", type=Path, metavar="FILE", help="write the HTML page")
    parser.add_argument("--md", type=Path, metavar="FILE", help="write the Markdown report")
    parser.add_argument(
        "--baseline",
        metavar="RUN|REPORT.json",
        help="mark the turns that regressed or were fixed against this run on the HTML page",
    )
    try:
        args = parser.parse_args(argv)
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    if args.html is None and args.md is None:
        return _fail(EXIT_BAD_INPUT, "nothing to write: add --html FILE (or --md FILE)")
    report = _stored_or_file(args.report, args.agent)
    if report is None:
        return EXIT_BAD_INPUT
    comparison = None
    if args.baseline is not None:
        comparison = _comparison(args.baseline, args.report, report, args.agent)
        if comparison is None:
            return EXIT_BAD_INPUT
    outputs: list[tuple[Path | None, Callable[[], str]]] = [
        (args.html, lambda: html.render_html(report, comparison)),
        (args.md, lambda: markdown.render(report)),
    ]
    for path, render in outputs:
        if path is None:
            continue
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            # The JSON report was masked when the run wrote it; this command knows no secrets.
            path.write_text(render(), encoding="utf-8")
        except OSError as error:
            return _fail(EXIT_CANNOT_WRITE, f"cannot write {path}: {error.strerror or error}")
    return EXIT_OK


def _comparison(
    baseline: str, head_label: str, report: TestReport, agent: Path
) -> Comparison | None:
    """The comparison of `report` against `baseline` (a stored run or a report file), or
    None after printing why the baseline cannot be read."""
    from holodeck_lsp.engine.run_comparison import compare_reports
    from holodeck_lsp.runner.compare_sources import SideError, side_named

    if agent.is_dir():  # a stored baseline is one of this report's agent file's runs
        agent = agent / Path(report.agent_config_path).name
    try:
        base = side_named(baseline, agent)
        base_report = base.report()
    except SideError as error:
        _fail(EXIT_BAD_INPUT, f"--baseline {baseline}: {error}")
        return None
    head_ref = RunRef(label=head_label, run_id=report.run_id, agent_path=report.agent_config_path)
    return compare_reports(base_report, report, base_ref=base.ref, head_ref=head_ref)


def _stored_or_file(ref: str, agent: Path) -> TestReport | None:
    path = Path(ref)
    if path.is_file() or ref.endswith(".json"):
        return read_report(path)
    from holodeck_lsp.runner.run_history import RunNotFound, RunUnreadable, resolve, runs_folder

    agent_file = None if agent.is_dir() else agent.name
    try:
        return resolve(ref, runs_folder(agent), agent_file).load_report()
    except (RunNotFound, RunUnreadable) as error:
        _fail(EXIT_BAD_INPUT, f"{error} (or pass a JSON report file)")
        return None


def read_report(path: Path) -> TestReport | None:
    """The report in `path`, or None after printing why it cannot be read."""
    try:
        raw = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except OSError as error:
        _fail(EXIT_BAD_INPUT, f"cannot read {path}: {error.strerror or error}")
        return None
    except json.JSONDecodeError as error:
        _fail(
            EXIT_BAD_INPUT,
            f"{path} is not JSON (line {error.lineno}: {error.msg}); "
            "pass a file written by `holodeck-lsp run --report-json`",
        )
        return None
    try:
        return TestReport.model_validate(raw)
    except ValidationError as error:
        unknown = [e["loc"] for e in error.errors() if e["type"] == "extra_forbidden"]
        if unknown and len(unknown) == error.error_count():
            for loc in unknown:
                _drop(raw, loc)
            names = sorted(
                {".".join(str(p) for p in loc if not isinstance(p, int)) for loc in unknown}
            )
            print(
                f"holodeck-lsp: warning: {path}: ignored fields this version does not know: "
                + ", ".join(names),
                file=sys.stderr,
            )
            try:
                return TestReport.model_validate(raw)
            except ValidationError as again:
                error = again
        problems = [
            f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}"
            for e in error.errors()
        ]
        more = len(problems) - _SHOWN_PROBLEMS
        shown = "; ".join(problems[:_SHOWN_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")
        _fail(
            EXIT_BAD_INPUT,
            f"{path} is not a holodeck-lsp JSON report ({shown}); "
            "pass a file written by `holodeck-lsp run --report-json`",
        )
        return None


def _drop(data: Any, loc: tuple[int | str, ...]) -> None:
    for part in loc[:-1]:
        data = data[part]
    if isinstance(data, dict):
        data.pop(loc[-1], None)


def _fail(status: int, message: str) -> int:
    print(f"holodeck-lsp: error: {message}", file=sys.stderr)
    return status
