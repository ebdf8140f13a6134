"""Built-in metrics: grade one turn's response against its ground truth.

`evaluate_metric` is the entry point; it dispatches on the metric, as the metric catalogue
(`schema.metric_catalogue`, each entry naming its evaluator) and the evaluator registry
(`registry.EVALUATORS`, keyed from those entries) say:

| metric                                      | evaluator                        |
|---------------------------------------------|----------------------------------|
| standard `equality`                         | `equality.evaluate_equality`     |
| standard `numeric`                          | `numeric.evaluate_numeric`       |
| standard `bleu` / `rouge` / `meteor`        | `nlp.evaluate_nlp` (extra `nlp`) |
| standard `groundedness` / `relevance` /     | `judges.skip_judged` (skipped)   |
| `coherence` / `fluency`, `geval`, `rag`     |                                  |

Before that, in this order: a disabled metric is skipped (`disabled`); an LLM-judged metric
is skipped; a ground-truth metric on a turn without `ground_truth` is skipped
(`no ground_truth on this turn`) — except on a legacy single-turn case (`legacy_case=True`),
where it fails as it does upstream (docs/grading.md#which-metrics-grade-a-turn); a turn that failed
before answering (`response` None) fails the metric (`no response`). Skipped results have
`passed` None and never fail a turn.
`code` graders are not handled here (they need the whole turn context).

Pure functions: no backend, no I/O; the NLP libraries are imported on first use only.
"""

from __future__ import annotations

from time import perf_counter_ns

from holodeck_lsp.engine.evaluators._common import pass_mark
from holodeck_lsp.engine.evaluators.equality import evaluate_equality, normalize
from holodeck_lsp.engine.evaluators.judges import NOT_RUN, metric_name, skip_judged
from holodeck_lsp.engine.evaluators.nlp import INSTALL_HINT, evaluate_nlp
from holodeck_lsp.engine.evaluators.numeric import (
    THOUSANDS_SEPARATORS,
    NotANumber,
    evaluate_numeric,
    parse_number,
)
from holodeck_lsp.engine.evaluators.registry import EVALUATORS
from holodeck_lsp.engine.evaluators.response_path import ResponsePathError, extract
from holodeck_lsp.schema.metric_catalogue import (
    BINARY_THRESHOLD,
    NLP_THRESHOLD,
    STANDARD_METRICS,
)
from holodeck_lsp.schema.metrics import GEvalMetric, RAGMetric, StandardMetric
from holodeck_lsp.schema.results import MetricResult

__all__ = [
    "BINARY_THRESHOLD",
    "EVALUATORS",
    "GROUND_TRUTH_METRICS",
    "INSTALL_HINT",
    "NLP_THRESHOLD",
    "NOT_RUN",
    "THOUSANDS_SEPARATORS",
    "NotANumber",
    "ResponsePathError",
    "evaluate_equality",
    "evaluate_metric",
    "evaluate_nlp",
    "evaluate_numeric",
    "extract",
    "metric_name",
    "normalize",
    "parse_number",
    "skip_judged",
]

#: Standard metrics that compare the response with the turn's ground truth.
GROUND_TRUTH_METRICS = frozenset(
    name for name, spec in STANDARD_METRICS.items() if spec.needs_ground_truth
)

_NO_GROUND_TRUTH = "no ground_truth on this turn"
_LEGACY_NO_GROUND_TRUTH = (
    "no ground_truth on this test case: {metric} compares the response with ground_truth "
    "(HoloDeck fails it too); add ground_truth: to the case, or give the case its own "
    "evaluations: without {metric}"
)


def _skipped(metric: StandardMetric, reason: str) -> MetricResult:
    return MetricResult(
        metric_name=metric.metric,
        kind="standard",
        threshold=metric.threshold,
        passed=None,
        skipped=True,
        reasoning=reason,
    )


def _evaluate(
    metric: StandardMetric | GEvalMetric | RAGMetric,
    response: str | None,
    ground_truth: str | None,
    legacy_case: bool,
) -> MetricResult:
    if not metric.enabled:
        return MetricResult(
            metric_name=metric_name(metric),
            kind=metric.type,
            threshold=metric.threshold,
            passed=None,
            skipped=True,
            reasoning="disabled",
        )
    if not isinstance(metric, StandardMetric) or STANDARD_METRICS[metric.metric].llm_judged:
        return skip_judged(metric)
    # Every evaluator compares with the ground truth (the catalogue test pins that).
    if ground_truth is None:
        if legacy_case:
            # Upstream runs the evaluator anyway on a legacy case, which fails for want of a
            # ground truth; multi-turn turns skip (upstream skips them too).
            return MetricResult(
                metric_name=metric.metric,
                kind="standard",
                threshold=pass_mark(metric),
                passed=False,
                error=_LEGACY_NO_GROUND_TRUTH.format(metric=metric.metric),
            )
        return _skipped(metric, _NO_GROUND_TRUTH)
    if response is None:
        return MetricResult(
            metric_name=metric.metric,
            kind="standard",
            threshold=pass_mark(metric),
            passed=False,
            error="no response",
        )
    return EVALUATORS[metric.metric](metric, response, ground_truth)


def evaluate_metric(
    metric: StandardMetric | GEvalMetric | RAGMetric,
    response: str | None,
    ground_truth: str | None,
    retrieval_context: list[str] | None = None,
    *,
    legacy_case: bool = False,
) -> MetricResult:
    """Grade one turn with one metric.

    `response` is None when the turn failed before the agent answered. `retrieval_context`
    is for the RAG judges, which do not run yet; it is accepted and unused. `legacy_case`:
    the turn is a legacy single-turn case (a missing ground truth fails, as upstream).
    """
    del retrieval_context  # reserved for the LLM judges
    started = perf_counter_ns()
    result = _evaluate(metric, response, ground_truth, legacy_case)
    result.evaluation_time_ms = (perf_counter_ns() - started) // 1_000_000
    return result
