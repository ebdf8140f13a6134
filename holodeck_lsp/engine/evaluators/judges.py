"""LLM-judged metrics — `groundedness`, `relevance`, `coherence`, `fluency`, every `geval`
and every `rag` metric. holodeck-lsp does not call a judge model yet, so these are always
reported as skipped (`passed` None): they neither pass nor fail a turn."""

from __future__ import annotations

from holodeck_lsp.schema.metrics import GEvalMetric, RAGMetric, StandardMetric
from holodeck_lsp.schema.results import MetricResult

NOT_RUN = "needs an LLM judge, which holodeck-lsp does not run yet"


def metric_name(metric: StandardMetric | GEvalMetric | RAGMetric) -> str:
    """The name a result carries: the standard metric, the G-Eval `name`, the RAG type."""
    if isinstance(metric, StandardMetric):
        return metric.metric
    if isinstance(metric, GEvalMetric):
        return metric.name
    return metric.metric_type.value


def skip_judged(metric: StandardMetric | GEvalMetric | RAGMetric) -> MetricResult:
    """The skipped result of an LLM-judged metric."""
    name = metric_name(metric)
    if isinstance(metric, GEvalMetric):
        what = f'G-Eval metric "{name}"'
    elif isinstance(metric, RAGMetric):
        what = f"RAG metric {name}"
    else:
        what = name
    return MetricResult(
        metric_name=name,
        kind=metric.type,
        threshold=metric.threshold,
        passed=None,
        skipped=True,
        reasoning=f"{what} {NOT_RUN}",
    )
