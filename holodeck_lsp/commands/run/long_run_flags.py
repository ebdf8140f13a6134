"""`run`'s flags for long runs against real providers (docs/running.md, "Long runs"). The
run's limiters are set from them and holodeck-lsp.yaml by `runner.project_limits`, the
function the editor's runs call too."""

from __future__ import annotations

import argparse

from holodeck_lsp.argument_types import non_negative, positive_int, positive_usd
from holodeck_lsp.commands.run.flag_values import LATEST_UNFINISHED
from holodeck_lsp.runner.limits.budget import DEFAULT_RETRY_BUDGET
from holodeck_lsp.runner.limits.registry import DEFAULT_MAX_TOOL_ROUNDS


def add_long_run_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--retry-budget",
        type=non_negative,
        metavar="N",
        help="retries one turn may make on 429 / 5xx / dropped connections before the turn is "
        f"errored (default: retry_budget in holodeck-lsp.yaml, else $HOLODECK_RETRY_BUDGET, "
        f"else {DEFAULT_RETRY_BUDGET})",
    )
    parser.add_argument(
        "--max-tool-rounds",
        type=positive_int,
        metavar="N",
        help="tool rounds (model answers whose calls are run) one turn may take; a turn that "
        "reaches N is stopped and reported so (default: max_tool_rounds in holodeck-lsp.yaml, "
        f"else {DEFAULT_MAX_TOOL_ROUNDS}; a Claude agent's own claude.max_turns, when "
        "written, is its limit)",
    )
    parser.add_argument(
        "--max-cost",
        type=positive_usd,
        metavar="USD",
        help="start no case once the agent's cost would pass USD (estimated from the cost per "
        "turn so far, at the price list or holodeck-lsp.yaml `prices`); the cases in flight "
        "finish, and the run is stored as stopped early",
    )
    parser.add_argument(
        "--max-turns",
        type=positive_int,
        metavar="N",
        help="start no case once the turns sent would pass N; the cases in flight finish",
    )


def add_resume_flags(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--resume",
        nargs="?",
        const=LATEST_UNFINISHED,
        metavar="RUN",
        help="finish a stored run that stopped early (Ctrl-C, a crash, --fail-fast): run only "
        "its cases not finished yet, under the same run id (default: the latest unfinished "
        "run of the agent file)",
    )
    parser.add_argument(
        "--retry-errored",
        action="store_true",
        help="with --resume: also run again the cases with an errored turn (the provider "
        "failed); works on a finished run too",
    )
    parser.add_argument(
        "--force",
        action="store_true",
        help="with --resume: resume even though the agent file, its tools or graders "
        "changed since the run started",
    )


def resume_value_first(argv: list[str]) -> list[str]:
    """`run --resume agent.yaml`: argparse would take the path for RUN. A `--resume` followed
    by something that exists on disk (run ids never do) is moved to the end instead."""
    from pathlib import Path

    out = list(argv)
    for position, token in enumerate(out[:-1]):
        if token == "--resume" and Path(out[position + 1]).exists():
            return [*out[:position], *out[position + 1 :], "--resume"]
    return out
