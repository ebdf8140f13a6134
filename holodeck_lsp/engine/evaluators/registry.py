"""Which evaluator computes which built-in metric.

The metric catalogue (`schema.metric_catalogue`) says what a metric is; this says who grades
it. Every standard metric that is not LLM-judged has exactly one evaluator here, and every
evaluator compares the response with the turn's ground truth —
`tests/schema/test_metric_catalogue.py` checks both against the catalogue.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from holodeck_lsp.engine.evaluators.equality import evaluate_equality
from holodeck_lsp.engine.evaluators.nlp import evaluate_nlp
from holodeck_lsp.engine.evaluators.numeric import evaluate_numeric
from holodeck_lsp.schema.metrics import StandardMetric
from holodeck_lsp.schema.results import MetricResult

#: `(metric, response, ground_truth) -> result`.
Evaluator = Callable[[StandardMetric, str, str], MetricResult]

#: The evaluator of each non-judged standard metric, by `metric:` name.
EVALUATORS: Mapping[str, Evaluator] = MappingProxyType(
    {
        "equality": evaluate_equality,
        "numeric": evaluate_numeric,
        "bleu": evaluate_nlp,
        "rouge": evaluate_nlp,
        "meteor": evaluate_nlp,
    }
)
