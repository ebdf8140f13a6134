"""`holodeck-lsp merge RUN|REPORT.json…`: the runs of one suite's shards (`run --shard K/N`,
one per CI machine) joined into one stored run — `runs`, `report` and `compare` then read it
like any other (docs/running.md, "Splitting a suite across machines").

Each part is a stored run of the agent (id, prefix, tag, `latest`, `previous`) or a report
file (`run --report-json`). The merged run is stored beside the agent (`--agent PATH`, else
the agent file the reports name, else the one with stored runs under the current folder);
`--report-json FILE` also writes it as a report file; `--no-save` only writes that file.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

from holodeck_lsp.commands._common import fail, warn, write_output
from holodeck_lsp.engine.report_merge import MergeError
from holodeck_lsp.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RUN,
    EXIT_OK,
    MERGE_EXIT_CODES,
    epilog,
)
from holodeck_lsp.reports.run import json_report
from holodeck_lsp.runner.run_history.comparison_sides import (
    Side,
    SideError,
    looks_like_file,
    side_named,
)
from holodeck_lsp.runner.run_history.merge import merged_report, store_merged
from holodeck_lsp.schema.results import TestReport


def main(argv: Sequence[str]) -> int:
    parser = merge_parser()
    try:
        args = parser.parse_args(list(argv))
    except SystemExit as exit_:
        return exit_.code if isinstance(exit_.code, int) else EXIT_BAD_INPUT
    if args.no_save and args.report_json is None:
        return fail(EXIT_BAD_INPUT, "--no-save stores nothing: give --report-json FILE too")
    needs_history = not all(looks_like_file(name) for name in args.runs)
    try:
        agent = _agent(args.agent) if needs_history else None
        sides: list[Side] = [side_named(name, agent) for name in args.runs]
        report = merged_report(sides, warn)
    except (SideError, MergeError) as error:
        return fail(EXIT_BAD_INPUT, str(error))
    if args.report_json is not None:
        text = json_report.render(report)
        written = write_output(args.report_json, text, status_if_not=EXIT_CANNOT_RUN)
        if written != EXIT_OK:
            return written
    stored = ""
    if not args.no_save:
        target = agent or _agent_of(args.agent, report)
        if target is None:
            return fail(
                EXIT_BAD_INPUT,
                f"the reports name {report.agent_config_path}, which is not a file here: "
                "give --agent PATH (the agent file to store the merged run beside) or --no-save",
            )
        try:
            run = store_merged(target, report)
        except OSError as error:
            return fail(EXIT_CANNOT_RUN, f"cannot store the merged run: {error}")
        stored = f" as run {run.id}"
    summary = report.summary
    print(
        f"merged {len(sides)} runs{stored}: {summary.passed} passed, {summary.failed} failed"
        + (f", {summary.errored} errored" if summary.errored else "")
        + f" of {summary.total_tests} test cases ({summary.passed_turns}/{summary.total_turns} "
        "turns)" + (f"; written to {args.report_json}" if args.report_json is not None else "")
    )
    return EXIT_OK


def _agent(given: Path | None) -> Path:
    from holodeck_lsp.runner.run_history.which_agent import AgentNotChosen, NothingStored, one_agent

    try:
        return one_agent(given if given is not None else Path("."))
    except (NothingStored, AgentNotChosen) as error:
        raise SideError(str(error)) from None


def _agent_of(given: Path | None, report: TestReport) -> Path | None:
    """Where to store a merge of report files: --agent (a file, or the one agent with stored
    runs in a folder), else the agent file the reports name when it is here."""
    if given is not None:
        return given if given.is_file() else _agent(given)
    named = Path(report.agent_config_path)
    return named if named.is_file() else None


def merge_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp merge",
        description="Join the runs of a suite's shards (run --shard K/N) into one stored run "
        "(see docs/running.md, 'Splitting a suite across machines').",
        epilog=epilog(MERGE_EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "runs",
        nargs="+",
        metavar="RUN",
        help="stored runs (id, id prefix, tag, latest, previous) or report files "
        "(run --report-json), one per shard",
    )
    parser.add_argument(
        "--agent",
        type=Path,
        metavar="PATH",
        help="the agent file (or a folder with it) whose runs these are and beside which the "
        "merged run is stored (default: the file the reports name, else the current folder's)",
    )
    parser.add_argument(
        "--report-json", type=Path, metavar="FILE", help="also write the merged report to FILE"
    )
    parser.add_argument(
        "--no-save", action="store_true", help="do not store the merged run (needs --report-json)"
    )
    return parser
