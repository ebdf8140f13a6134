"""Which metrics grade a turn: the most specific non-empty list wins — the turn's own
`evaluations`, else its case's, else the agent's `evaluations.metrics`
(docs/grading.md#which-metrics-grade-a-turn).

Lists are taken, never merged or modified, so a flag set on one turn (say
`case_insensitive: true`) can never change how another turn is graded.
"""

from __future__ import annotations

from collections.abc import Sequence

from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.metrics import AnyMetric
from holodeck_lsp.schema.test_case import TestCase, Turn


def select_metrics(
    agent_metrics: Sequence[AnyMetric] | None,
    case_metrics: Sequence[AnyMetric] | None,
    turn_metrics: Sequence[AnyMetric] | None = None,
) -> tuple[AnyMetric, ...]:
    for candidates in (turn_metrics, case_metrics, agent_metrics):
        if candidates:
            return tuple(candidates)
    return ()


def metrics_for(agent: Agent, case: TestCase, turn: Turn | None = None) -> tuple[AnyMetric, ...]:
    """The metrics for `turn` of `case` (or for a single-turn case when `turn` is None)."""
    agent_metrics = agent.evaluations.metrics if agent.evaluations else None
    return select_metrics(agent_metrics, case.evaluations, turn.evaluations if turn else None)
