"""Import the code graders a run needs, once per `module:callable`, before any case starts.

A grader that cannot be imported does not stop the run: it is replaced by a stand-in that
raises the import error, so every metric using it fails with that message (the engine records
what a grader raises) while the other metrics and cases are graded as usual.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from holodeck_lsp.engine.code_graders import GraderContext, load_grader
from holodeck_lsp.engine.metric_selection import metrics_for
from holodeck_lsp.engine.turn_grading import GraderFn
from holodeck_lsp.runner.selection import PlannedCase
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.metrics import CodeMetric


class GraderNotLoaded(Exception):
    """Raised in place of a grader whose import failed; the message is the import error."""


def grader_specs(agent: Agent, planned: Iterable[PlannedCase]) -> list[str]:
    """Every enabled `grader:` the planned cases' turns use, in first-use order."""
    specs: dict[str, None] = {}
    for item in planned:
        turns = item.case.turns if item.case.turns is not None else [None]
        for turn in turns:
            for metric in metrics_for(agent, item.case, turn):
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
