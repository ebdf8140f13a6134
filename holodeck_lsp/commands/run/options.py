"""The options of `holodeck-lsp run`: the parser, and which options only make sense with one
agent file. The report flags come from the report-format table (commands/report_formats.py).
"""

from __future__ import annotations

import argparse
from pathlib import Path

from holodeck_lsp.argument_types import non_negative, positive_int, positive_seconds
from holodeck_lsp.commands.report_formats import REPORT_FORMATS
from holodeck_lsp.commands.run.flag_values import PROGRESS_CHOICES
from holodeck_lsp.commands.run.long_run_flags import add_long_run_flags, add_resume_flags
from holodeck_lsp.commands.run.trace_flag import add_trace_flag
from holodeck_lsp.exit_codes import RUN_EXIT_CODES, epilog
from holodeck_lsp.runner.backends.providers import provider_names
from holodeck_lsp.runner.shards import Shard, ShardError, parse_shard
from holodeck_lsp.terminal import COLOR_CHOICES

#: Options that name one agent's cases (flag, attribute): refused when several agents run —
#: each agent has its own cases. Reports and cassettes work on a folder (folder_run.py).
PER_AGENT_OPTIONS: tuple[tuple[str, str], ...] = (
    ("--case", "case"),
    ("--turn", "turn"),
)


def shard_argument(text: str) -> Shard:
    try:
        return parse_shard(text)
    except ShardError as error:
        raise argparse.ArgumentTypeError(str(error).removeprefix(f"--shard {text}: ")) from None


def run_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="holodeck-lsp run",
        description="Run an agent's test cases and grade them (see docs/running.md).",
        epilog=epilog(RUN_EXIT_CODES),
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="agent files, or folders: every agent.yaml / *.agent.yaml below them, run as one "
        "run (optional with --resume: the stored run names its agent file)",
    )
    parser.add_argument(
        "--case",
        action="append",
        metavar="NAME|INDEX|GLOB",
        help="run this case: its name, its 0-based position, or a glob over names ('rev*'); "
        "repeat for more",
    )
    parser.add_argument(
        "-k",
        dest="keyword",
        metavar="EXPR",
        help="run the cases whose name matches EXPR: words with and / or / not, as pytest -k",
    )
    parser.add_argument(
        "--shard",
        type=shard_argument,
        metavar="K/N",
        help="run only shard K of N: the cases whose name hashes to K (stable across runs and "
        "machines); join the shards' runs with `holodeck-lsp merge`",
    )
    parser.add_argument(
        "--turn",
        type=non_negative,
        metavar="N",
        help="with one --case: grade only turn N (0-based); turns 0..N-1 are sent as context",
    )
    parser.add_argument(
        "-x",
        "--fail-fast",
        action="store_true",
        help="stop at the first failing case (cases not finished are reported as cancelled)",
    )
    parser.add_argument(
        "--last-failed",
        action="store_true",
        help="run only the cases that failed in the last run (kept in .holodeck/ beside the "
        "agent file)",
    )
    parser.add_argument(
        "--watch", action="store_true", help="run again each time a file of the suite is saved"
    )
    parser.add_argument(
        "--color",
        choices=COLOR_CHOICES,
        default="auto",
        help="colour the output (default: auto — on a terminal, unless NO_COLOR is set)",
    )
    parser.add_argument(
        "--parallel",
        type=positive_int,
        metavar="N",
        help="cases run at once (default: execution.parallel_test_cases, else "
        "$HOLODECK_PARALLEL_TEST_CASES, else 1)",
    )
    parser.add_argument(
        "--model",
        action="append",
        metavar="PROVIDER:NAME",
        help=f"run the suite with this model instead of the agent's ({provider_names()}); "
        "repeat for a matrix, one column per model (default: models: in "
        "holodeck-lsp.yaml, else the agent's model)",
    )
    parser.add_argument(
        "--repeat",
        type=int,
        metavar="N",
        help="run every case N times, in N independent sessions (per model): pass rates, "
        "flaky turns, pass@1",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="with several models or repeats: one row per turn in the summary table; and the "
        "agent SDKs' own log lines (Semantic Kernel's) on stderr",
    )
    parser.add_argument(
        "--record",
        type=Path,
        metavar="FILE",
        help="record a cassette (several agent files: a folder, one cassette per agent file)",
    )
    parser.add_argument(
        "--replay",
        type=Path,
        metavar="FILE",
        help="answer from a cassette, no backend (several agent files: a folder --record wrote)",
    )
    parser.add_argument(
        "--replay-user",
        type=Path,
        metavar="FILE",
        help="send the simulated users' recorded messages (a --record cassette) to the live "
        "agent, and mark where its answers diverge from the recording",
    )
    parser.add_argument(
        "--rejudge",
        action="store_true",
        help="with --replay: call the judges again instead of reusing recorded verdicts",
    )
    parser.add_argument(
        "--no-save",
        action="store_true",
        help="do not store this run in the history (.holodeck/runs/ beside the agent file)",
    )
    parser.add_argument(
        "--keep",
        type=non_negative,
        metavar="N",
        help="runs of the agent kept in the history, tagged ones apart (default "
        "$HOLODECK_RUNS_KEEP, else 20; 0 keeps all)",
    )
    parser.add_argument(
        "--baseline",
        metavar="NAME",
        help="end with `compare` against this stored run (a tag, id, previous) or report file; "
        "the exit status is then compare's: 1 only when a turn regressed",
    )
    for report_format in REPORT_FORMATS:
        parser.add_argument(
            report_format.run_flag, type=Path, metavar="FILE", help=report_format.help
        )
    parser.add_argument(
        "--quiet", action="store_true", help="print only the summary (totals and tokens)"
    )
    parser.add_argument(
        "--progress",
        choices=PROGRESS_CHOICES,
        default="auto",
        help="cases: a line per case (per turn without a terminal); totals: one aggregate "
        "line; auto (default): totals for a large run (over 50 cases, or 200 turns without a "
        "terminal)",
    )
    parser.add_argument(
        "--grader-timeout",
        type=positive_seconds,
        metavar="S",
        help="seconds a code grader may run (default $HOLODECK_GRADER_TIMEOUT or 30)",
    )
    add_long_run_flags(parser)
    add_resume_flags(parser)
    add_trace_flag(parser)
    return parser
