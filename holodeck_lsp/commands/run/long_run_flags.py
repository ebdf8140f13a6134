"""`run`'s flags for long runs against real providers (docs/running.md, "Long runs"), and
setting the run's limiters from them and from holodeck-lsp.yaml before the run starts."""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from pathlib import Path

from holodeck_lsp.argument_types import non_negative, positive_int, positive_usd
from holodeck_lsp.config.limits_config import configured_limits
from holodeck_lsp.config.models_config import ModelsConfigError
from holodeck_lsp.runner.limits.budget import DEFAULT_RETRY_BUDGET
from holodeck_lsp.runner.limits.endpoint import EndpointLimits
from holodeck_lsp.runner.limits.registry import LimitSettings, configure, settings


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
    from holodeck_lsp.commands.run.resume_run import LATEST_UNFINISHED

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


def configure_limits(args: argparse.Namespace, agent_path: Path) -> str | None:
    """Set the limiters for this agent's run; returns why they cannot be set (a bad
    holodeck-lsp.yaml), or None."""
    try:
        found = configured_limits(agent_path.parent)
    except ModelsConfigError as error:
        return str(error)
    budget = args.retry_budget
    if budget is None:
        budget = found.retry_budget if found.retry_budget is not None else settings().retry_budget
    limits = {
        key: EndpointLimits(
            rpm=values.get("rpm"),
            tpm=values.get("tpm"),
            max_in_flight=int(values["max_in_flight"]) if "max_in_flight" in values else None,
        )
        for key, values in found.limits.items()
    }
    configure(LimitSettings(retry_budget=budget, limits=limits))
    return None


def configured_prices(agent_path: Path) -> Mapping[str, Mapping[str, float]]:
    """holodeck-lsp.yaml `prices:` (already validated by `configure_limits`)."""
    try:
        return configured_limits(agent_path.parent).prices
    except ModelsConfigError:
        return {}
