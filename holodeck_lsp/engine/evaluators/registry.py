"""Which evaluator computes which built-in metric.

The metric catalogue (`schema.metric_catalogue`) says what a metric is and names the
evaluator that grades it (its entry's `evaluator`); this module holds the evaluators by
those names and keys the registry from the catalogue, so a metric graded by an existing
evaluator is one catalogue entry. Every evaluator here is named by some entry, every entry's
evaluator is here, and every evaluator compares the response with the turn's ground truth —
`tests/schema/test_metric_specs.py` and `tests/schema/test_metric_catalogue.py` check it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType

from holodeck_lsp.engine.evaluators.equality import evaluate_equality
from holodeck_lsp.engine.evaluators.nlp import evaluate_nlp
from holodeck_lsp.engine.evaluators.numeric import evaluate_numeric
from holodeck_lsp.schema.metric_catalogue import STANDARD_METRICS
from holodeck_lsp.schema.metrics import StandardMetric
from holodeck_lsp.schema.results import MetricResult

#: `(metric, response, ground_truth) -> result`.
Evaluator = Callable[[StandardMetric, str, str], MetricResult]

#: The evaluators, by the name a catalogue entry's `evaluator` gives.
EVALUATORS_BY_NAME: Mapping[str, Evaluator] = MappingProxyType(
    {
        "equality": evaluate_equality,
        "numeric": evaluate_numeric,
        "text_overlap": evaluate_nlp,
    }
)

#: The evaluator of each non-judged standard metric, by `metric:` name (from the catalogue).
EVALUATORS: Mapping[str, Evaluator] = MappingProxyType(
    {
        name: EVALUATORS_BY_NAME[spec.evaluator]
        for name, spec in STANDARD_METRICS.items()
        if spec.evaluator is not None
    }
)
