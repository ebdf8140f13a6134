"""A folder of agent files is one run (docs/running.md, "A folder of agent files"): each agent
file runs in turn with its own cases, history and closing lines, then the run ends with one
grand total over all of them — the last line, the `--report-*` files (one report holding every
agent's cases, reports/run/combined.py) and the exit status. `--record DIR` (and
`--replay DIR`) hold one cassette per agent file, at the agent file's place under the folder:
`DIR/<its folder, relative>/<its name without .yaml>.json`.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path

from holodeck_lsp.commands._common import write_output
from holodeck_lsp.commands.console.closing_lines import totals_line
from holodeck_lsp.commands.report_formats import REPORT_FORMATS
from holodeck_lsp.commands.run.one_agent import AgentRun
from holodeck_lsp.exit_codes import (
    EXIT_BAD_INPUT,
    EXIT_CANNOT_RUN,
    EXIT_ERRORED,
    EXIT_OK,
    EXIT_TEST_FAILED,
)
from holodeck_lsp.terminal import Palette


def common_folder(paths: list[Path]) -> Path:
    """The folder every agent file lies under: their names are shown relative to it."""
    return Path(os.path.commonpath([path.resolve().parent for path in paths]))


def shown_name(path: Path, root: Path) -> str:
    return path.resolve().relative_to(root).as_posix()


def agent_args(args: argparse.Namespace, path: Path, root: Path) -> argparse.Namespace:
    """One agent file's options in a folder run: no report files of its own (the grand total
    writes them), its own cassette under the `--record` / `--replay` folder."""
    own = argparse.Namespace(**vars(args))
    for form in REPORT_FORMATS:
        setattr(own, form.run_dest, None)
    relative = path.resolve().relative_to(root)
    cassette = relative.parent / f"{relative.name.removesuffix('.yaml')}.json"
    if args.record is not None:
        own.record = args.record / cassette
    if args.replay is not None and args.replay.is_dir():
        own.replay = args.replay / cassette
    return own


def overall_status(statuses: list[int]) -> int:
    """The folder run's status over every agent file: a run that could not proceed (3) or a
    configuration error (2) first, then a failed case (1) over an errored one (4), then 0."""
    for status in (EXIT_CANNOT_RUN, EXIT_BAD_INPUT, EXIT_TEST_FAILED, EXIT_ERRORED):
        if status in statuses:
            return status
    return max(statuses, default=EXIT_OK)


def grand_total(
    args: argparse.Namespace,
    runs: list[AgentRun],
    root: Path,
    files: int,
    elapsed: float,
    palette: Palette,
) -> int:
    """Write the combined reports and print the grand total line (the last line); EXIT_OK, or
    EXIT_CANNOT_RUN when a report cannot be written."""
    from holodeck_lsp.reports.run.combined import combined_report

    status = EXIT_OK
    if not runs:
        print(f"all {files} agent files: none ran to the end", flush=True)
        return status
    report = combined_report([(shown_name(run.path, root), run.report) for run in runs], str(root))
    redactor = runs[0].redactor
    for run in runs[1:]:
        redactor = redactor | run.redactor
    for form in REPORT_FORMATS:
        target = getattr(args, form.run_dest)
        if target is None:
            continue
        text = redactor.text(form.render(report))
        written = write_output(target, text, status_if_not=EXIT_CANNOT_RUN, make_folder=True)
        if written == EXIT_OK:
            print(f"report written to {target}")
        status = max(status, written)
    not_ran = files - len(runs)
    missing = f"; {not_ran} of them did not run to the end" if not_ran else ""
    line = totals_line(report, elapsed, None, palette)
    print(f"\nall {files} agent files{missing}: {line}", flush=True)
    return status
