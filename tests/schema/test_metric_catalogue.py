"""The metric catalogue is the one statement of each metric's facts: the schema, the engine's
evaluator registry, hover and completion all agree with it."""

from __future__ import annotations

from typing import Any, get_args

import pytest

from holodeck_lsp.engine import code_graders
from holodeck_lsp.engine.evaluators import GROUND_TRUTH_METRICS, evaluate_metric
from holodeck_lsp.engine.evaluators.registry import EVALUATORS
from holodeck_lsp.schema.metric_catalogue import (
    CATALOGUE,
    KIND_DOCS,
    LLM_JUDGED_METRICS,
    METRIC_TYPES,
    RAG_METRICS,
    RAG_THRESHOLD,
    STANDARD_METRICS,
    STANDARD_OPTIONS,
    Grading,
    MetricSpec,
    RAGMetricType,
    StandardMetricName,
    yaml_text,
)
from holodeck_lsp.schema.metrics import (
    CodeMetric,
    GEvalMetric,
    RAGMetric,
    StandardMetric,
)

MODELS = {"standard": StandardMetric, "geval": GEvalMetric, "rag": RAGMetric, "code": CodeMetric}


def standard(name: str) -> StandardMetric:
    return StandardMetric.model_validate({"type": "standard", "metric": name})


# --- the catalogue against the schema


def test_every_metric_name_has_exactly_one_entry() -> None:
    assert list(STANDARD_METRICS) == list(get_args(StandardMetricName))
    assert list(RAG_METRICS) == [member.value for member in RAGMetricType]
    names = [(spec.kind, spec.name) for spec in CATALOGUE]
    assert len(names) == len(set(names))
    assert {spec.kind for spec in CATALOGUE} == set(METRIC_TYPES) == set(KIND_DOCS)
    assert all(spec.kind == "standard" for spec in STANDARD_METRICS.values())
    assert all(spec.kind == "rag" for spec in RAG_METRICS.values())


def test_schema_reads_kinds_names_and_defaults_from_the_catalogue() -> None:
    for kind, model in MODELS.items():
        assert model.model_fields["type"].default == kind
        assert model.model_fields["type"].description == KIND_DOCS[kind]
    description = StandardMetric.model_fields["metric"].description or ""
    for spec in STANDARD_METRICS.values():
        assert spec.name in description
    for option, default in STANDARD_OPTIONS.items():
        assert StandardMetric.model_fields[option].default == default
    assert RAGMetric.model_fields["threshold"].default == RAG_THRESHOLD
    assert LLM_JUDGED_METRICS == ("groundedness", "relevance", "coherence", "fluency")


# --- the catalogue against the engine


@pytest.mark.parametrize("spec", CATALOGUE, ids=lambda spec: f"{spec.kind}:{spec.name}")
def test_every_entry_has_an_evaluator_or_is_judged(spec: MetricSpec) -> None:
    if spec.llm_judged:
        assert spec.name not in EVALUATORS or spec.kind != "standard"
    elif spec.grading is Grading.USER_CODE:
        assert spec.kind == "code"
        assert spec.default_threshold == code_graders.DEFAULT_THRESHOLD
    else:
        assert spec.kind == "standard" and spec.name in EVALUATORS
        # The registry's evaluators all take a ground truth, and have a pass mark.
        assert spec.needs_ground_truth and spec.default_threshold is not None


def test_every_evaluator_has_a_non_judged_entry() -> None:
    for name in EVALUATORS:
        assert name in STANDARD_METRICS and not STANDARD_METRICS[name].llm_judged
    assert set(EVALUATORS) == GROUND_TRUTH_METRICS


@pytest.mark.parametrize("name", list(STANDARD_METRICS))
def test_engine_grades_as_the_catalogue_says(name: str) -> None:
    spec = STANDARD_METRICS[name]
    result = evaluate_metric(standard(name), None, "25587")
    if spec.llm_judged:
        assert result.skipped and result.passed is None
    else:
        # A turn with no response fails at the catalogue's default pass mark.
        assert result.passed is False and result.threshold == spec.default_threshold
    missing = evaluate_metric(standard(name), "25587", None)
    assert missing.skipped
    if spec.needs_ground_truth:
        assert missing.reasoning == "no ground_truth on this turn"


@pytest.mark.parametrize(
    ("value", "text"), [(False, "false"), (True, "true"), (0.0, "0"), (0.5, "0.5"), (1e-6, "1e-6")]
)
def test_defaults_are_written_as_yaml(value: bool | float, text: str) -> None:
    assert yaml_text(value) == text


# --- the catalogue in the editor

AGENT = """\
name: x
model: {provider: openai, name: gpt-4o}
instructions: {inline: hi}
evaluations:
  metrics:
    - type: standard
      metric: %s
"""


def _hover(name: str) -> str | None:
    from holodeck_lsp.checker.yaml_document import parse_yaml
    from holodeck_lsp.server.documents.node_at import node_at
    from holodeck_lsp.server.documents.parsed import Parsed
    from holodeck_lsp.server.documents.positions import PositionConverter
    from holodeck_lsp.server.features.hover import hover_markdown

    text = AGENT % name
    parsed = Parsed(
        "file:///a/agent.yaml", None, 1, parse_yaml(text), PositionConverter(text, "utf-16")
    )
    at = node_at(parsed.document.root, 6, len("      metric: ") + 1)
    assert at is not None
    return hover_markdown(parsed, at)


@pytest.mark.parametrize("name", list(STANDARD_METRICS))
def test_hover_states_the_catalogue_rule(name: str) -> None:
    spec = STANDARD_METRICS[name]
    text = _hover(name)
    assert text == f"**metric `{name}`** — {spec.rule_text()}"
    for option in spec.options:
        assert f"`{option.name}`" in text and f"`{yaml_text(option.default)}`" in text


def _value_items(lines: list[str]) -> dict[str, Any]:
    from lsprotocol import types

    from holodeck_lsp.server.features.completion.candidates import value_items
    from holodeck_lsp.server.features.completion.context import context_at
    from holodeck_lsp.server.features.completion.item_builder import ItemBuilder

    ctx = context_at(lines, len(lines) - 1, len(lines[-1]))
    assert ctx is not None
    out = ItemBuilder(types.Range(types.Position(0, 0), types.Position(0, 0)), "")
    value_items(ctx, out, lines, None)
    return {item.label: item.documentation for item in out.items}


def test_completion_offers_the_catalogue_with_its_docs() -> None:
    head = (AGENT % "x").splitlines()[:5]
    kinds = _value_items([*head, "    - type: "])
    assert kinds == dict(KIND_DOCS)
    names = _value_items([*head, "    - type: standard", "      metric: "])
    assert names == {name: spec.doc for name, spec in STANDARD_METRICS.items()}
    rag = _value_items([*head, "    - type: rag", "      metric_type: "])
    assert rag == {name: spec.doc for name, spec in RAG_METRICS.items()}
