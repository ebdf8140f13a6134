"""Small helpers shared by the evaluators: pass marks, quoting values in messages, and
building results."""

from __future__ import annotations

import json

from holodeck_lsp.schema.metric_catalogue import STANDARD_METRICS
from holodeck_lsp.schema.metrics import StandardMetric
from holodeck_lsp.schema.results import MetricResult

#: How many characters of a value an error message quotes.
_SHOWN = 60

#: Names of the sides being compared, as messages spell them.
RESPONSE_SIDE = "agent response"
GROUND_TRUTH_SIDE = "ground truth"


def pass_mark(metric: StandardMetric) -> float:
    """The metric's `threshold`, or the catalogue's default pass mark for it."""
    if metric.threshold is not None:
        return metric.threshold
    default = STANDARD_METRICS[metric.metric].default_threshold
    if default is None:  # only LLM-judged metrics have none, and they never get graded here
        raise ValueError(f"metric {metric.metric} has no default pass mark")
    return default


def shown(text: str) -> str:
    """`text` quoted for a message: JSON-escaped (so new lines stay on one line) and cut
    to about 60 characters."""
    if len(text) > _SHOWN:
        text = text[: _SHOWN - 1] + "…"
    return json.dumps(text, ensure_ascii=False)


def binary_result(
    metric: StandardMetric, matched: bool, reasoning: str | None = None
) -> MetricResult:
    """The result of a yes/no metric: score 1.0 or 0.0 against its pass mark (1.0 unless
    `threshold` is set)."""
    threshold = pass_mark(metric)
    score = 1.0 if matched else 0.0
    return MetricResult(
        metric_name=metric.metric,
        kind="standard",
        score=score,
        threshold=threshold,
        passed=score >= threshold,
        reasoning=reasoning,
    )


def failed_result(metric: StandardMetric, error: str, threshold: float | None) -> MetricResult:
    """A metric that could not grade the turn: score 0, not passed, `error` says why."""
    return MetricResult(
        metric_name=metric.metric,
        kind="standard",
        score=0.0,
        threshold=threshold,
        passed=False,
        error=error,
    )
