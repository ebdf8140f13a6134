"""Which model judges an LLM-judged metric: the metric's own `model:`, else
`evaluations.model`, else the agent's `model:`.

Upstream HoloDeck stops at `evaluations.model` (and then falls back to a local Ollama
`gpt-oss:20b` nobody configured); holodeck-lsp falls back to the agent's own model instead,
so a suite with one `model:` can be judged without repeating it (docs/grading.md).
Pure: the checker, the engine and the runner all resolve it the same way.
"""

from __future__ import annotations

from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.llm import LLMProvider, model_label
from holodeck_lsp.schema.metric_catalogue import STANDARD_METRICS
from holodeck_lsp.schema.metrics import AnyMetric, CodeMetric, GEvalMetric, RAGMetric


def is_judged(metric: AnyMetric) -> bool:
    """Does an LLM judge grade this metric?"""
    if isinstance(metric, CodeMetric):
        return False
    if isinstance(metric, GEvalMetric | RAGMetric):
        return True
    return STANDARD_METRICS[metric.metric].llm_judged


def judge_model_of(metric: AnyMetric, agent: Agent | None) -> LLMProvider | None:
    """The judge model of `metric` (None when none of the three levels sets one)."""
    if isinstance(metric, CodeMetric):
        return None
    if metric.model is not None:
        return metric.model
    if agent is None:
        return None
    if agent.evaluations is not None and agent.evaluations.model is not None:
        return agent.evaluations.model
    return agent.model


def judge_label(model: LLMProvider) -> str:
    """How results and recordings name a judge model: `provider:name`."""
    return model_label(model.provider, model.name)
