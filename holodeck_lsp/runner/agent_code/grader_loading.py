"""What a run needs of its code graders: the callables, imported once per `module:callable`
before any case starts (see `grader_import`), and the time limit from the environment.

A grader that cannot be imported does not stop the run: it is replaced by a stand-in that
raises the import error, so every metric using it fails with that message (the engine records
what a grader raises) while the other metrics and cases are graded as usual.
"""

from __future__ import annotations

import logging
import math
import os
from collections.abc import Iterable, Mapping
from pathlib import Path

from holodeck_lsp.engine.code_graders import DEFAULT_GRADER_TIMEOUT, GraderContext
from holodeck_lsp.engine.metric_selection import metrics_for
from holodeck_lsp.engine.simulated_turns import every_simulated_metric
from holodeck_lsp.engine.turn_grading import GraderFn
from holodeck_lsp.runner.agent_code.grader_import import load_grader
from holodeck_lsp.runner.selection import PlannedCase
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.metrics import CodeMetric

_log = logging.getLogger(__name__)

TIMEOUT_ENV = "HOLODECK_GRADER_TIMEOUT"


class GraderNotLoaded(Exception):
    """Raised in place of a grader whose import failed; the message is the import error."""


def grader_specs(agent: Agent, planned: Iterable[PlannedCase]) -> list[str]:
    """Every enabled `grader:` the planned cases' turns use, in first-use order."""
    specs: dict[str, None] = {}
    for item in planned:
        turns = item.case.turns if item.case.turns is not None else [None]
        metrics = [m for turn in turns for m in metrics_for(agent, item.case, turn)]
        for metric in [*metrics, *every_simulated_metric(agent, item.case)]:
            if isinstance(metric, CodeMetric) and metric.enabled:
                specs.setdefault(metric.grader, None)
    return list(specs)


def load_graders(specs: Iterable[str], agent_dir: Path) -> dict[str, GraderFn]:
    loaded: dict[str, GraderFn] = {}
    for spec in specs:
        try:
            loaded[spec] = load_grader(spec, agent_dir)
        except Exception as error:  # user code: anything its import raises
            loaded[spec] = _stand_in(f"{type(error).__name__}: {error}")
    return loaded


def _stand_in(message: str) -> GraderFn:
    def not_loaded(_context: GraderContext) -> object:
        raise GraderNotLoaded(f"could not be loaded: {message}")

    return not_loaded


def default_grader_timeout(env: Mapping[str, str] = os.environ) -> float:
    """`HOLODECK_GRADER_TIMEOUT` in seconds when it is a positive number, else 30."""
    raw = env.get(TIMEOUT_ENV)
    if raw is None or not raw.strip():
        return DEFAULT_GRADER_TIMEOUT
    try:
        value = float(raw)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        _log.warning(
            "%s=%r is not a positive number of seconds; using %gs",
            TIMEOUT_ENV,
            raw,
            DEFAULT_GRADER_TIMEOUT,
        )
        return DEFAULT_GRADER_TIMEOUT
    return value
