"""One catalogue entry per metric is its one registration: the names `metric:` accepts, the
schema's option fields and the engine's evaluator registry are all derived from the entries
(schema/metric_catalogue.py; docs/architecture.md, "Where does a change go?")."""

from __future__ import annotations

import math
from typing import get_args

import pytest
from pydantic import ValidationError

from holodeck_lsp.engine.evaluators.registry import EVALUATORS, EVALUATORS_BY_NAME
from holodeck_lsp.schema.metric_catalogue import (
    CATALOGUE,
    RAG_METRICS,
    STANDARD_METRICS,
    STANDARD_OPTION_SPECS,
    MetricOption,
    RAGMetricType,
    StandardMetricName,
)
from holodeck_lsp.schema.metrics import RAGMetric, StandardMetric


def test_the_names_metric_accepts_are_the_entries() -> None:
    assert get_args(StandardMetricName) == tuple(STANDARD_METRICS)
    schema = StandardMetric.model_json_schema()
    assert schema["properties"]["metric"]["enum"] == list(STANDARD_METRICS)


def test_the_names_metric_type_accepts_are_the_rag_entries() -> None:
    assert [member.value for member in RAGMetricType] == list(RAG_METRICS)
    schema = RAGMetric.model_json_schema()
    assert schema["$defs"]["RAGMetricType"]["enum"] == list(RAG_METRICS)
    assert RAGMetric.model_validate({"metric_type": "faithfulness"}).metric_type.value == (
        "faithfulness"
    )


def test_every_entry_names_an_evaluator_the_engine_has_and_every_evaluator_is_named() -> None:
    named = {spec.evaluator for spec in CATALOGUE if spec.evaluator is not None}
    assert named == set(EVALUATORS_BY_NAME)
    for name, spec in STANDARD_METRICS.items():
        if spec.evaluator is None:
            assert name not in EVALUATORS
        else:
            assert EVALUATORS[name] is EVALUATORS_BY_NAME[spec.evaluator]
    # Only standard metrics are graded by an evaluator of the engine.
    assert all(spec.kind == "standard" for spec in CATALOGUE if spec.evaluator is not None)


def test_the_option_fields_are_the_entries_options_in_catalogue_order() -> None:
    fields = list(StandardMetric.model_fields)
    start = fields.index("custom_prompt") + 1
    assert fields[start : start + len(STANDARD_OPTION_SPECS)] == [
        option.name for option in STANDARD_OPTION_SPECS
    ]
    assert fields[-1] == "response_path"
    properties = StandardMetric.model_json_schema()["properties"]
    for option in STANDARD_OPTION_SPECS:
        field = StandardMetric.model_fields[option.name]
        assert field.default == option.default and field.description == option.doc
        expected = "boolean" if isinstance(option.default, bool) else "number"
        assert properties[option.name]["type"] == expected
        assert ("minimum" in properties[option.name]) is option.non_negative


@pytest.mark.parametrize(
    "option",
    [option for option in STANDARD_OPTION_SPECS if option.non_negative],
    ids=lambda option: option.name,
)
@pytest.mark.parametrize("value", [-1.0, math.nan])
def test_a_non_negative_option_refuses_what_is_not(option: MetricOption, value: float) -> None:
    with pytest.raises(ValidationError, match="tolerance must be a number >= 0"):
        StandardMetric.model_validate({"metric": "numeric", option.name: value})


def test_options_are_read_with_their_types() -> None:
    metric = StandardMetric.model_validate(
        {"metric": "numeric", "accept_percent": True, "absolute_tolerance": 0.5}
    )
    assert metric.flag("accept_percent") is True
    assert metric.number("absolute_tolerance") == 0.5
    with pytest.raises(TypeError):
        metric.flag("absolute_tolerance")
    with pytest.raises(TypeError):
        metric.number("accept_percent")
