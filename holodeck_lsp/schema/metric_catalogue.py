"""The metric catalogue: one entry per metric an `evaluations:` list can name, with the facts
every layer needs — its kind (the `type:` discriminator), how it is graded and by which
evaluator, whether it needs a `ground_truth` or a `retrieval_context`, its default pass mark,
its own options (name, default, doc, bounds) and a one-line doc.

Adding a built-in metric is one entry here. Everything else is derived from the entries: the
names a `metric:` accepts (`StandardMetricName`), the option fields of the schema model
(`schema.metrics.StandardMetric`, built from each entry's `options`), the engine's evaluator
registry (`engine.evaluators.registry`, keyed by each entry's `evaluator`), and the language
server's hover and completion. A metric graded by a new kind of evaluator also needs that
evaluator in the engine's table; `tests/schema/test_metric_catalogue.py` and
`tests/schema/test_metric_specs.py` check the entries and the engine agree.

Pure data: no pydantic, no I/O, so the language server can import it at start-up.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING, Literal

#: A metric's `type:` — the discriminator of the metric union.
MetricKind = Literal["standard", "geval", "rag", "code"]
#: The accepted values of a metric's `type:` key, in the order the docs list them.
METRIC_TYPES: tuple[MetricKind, ...] = ("standard", "geval", "rag", "code")

#: What each `type:` means (the description of the models' `type` field).
KIND_DOCS: Mapping[str, str] = MappingProxyType(
    {
        "standard": "`standard` — a built-in metric named by `metric`.",
        "geval": "`geval` — custom criteria.",
        "rag": "`rag` — a RAG pipeline metric.",
        "code": "`code` — a Python grader.",
    }
)


class Grading(StrEnum):
    """How a metric's score is produced (the value is how descriptions name the group)."""

    LLM_JUDGE = "LLM judge"
    TEXT_OVERLAP = "text overlap"
    DETERMINISTIC = "deterministic"
    USER_CODE = "user code"


#: Pass mark of the binary metrics (`equality`, `numeric`) when `threshold` is not set.
BINARY_THRESHOLD = 1.0
#: Pass mark of `bleu`, `rouge` and `meteor` when `threshold` is not set.
NLP_THRESHOLD = 0.5
#: Default `threshold` of a rag metric (HoloDeck's model default).
RAG_THRESHOLD = 0.5
#: Pass mark of a code grader that returns a bare score when `threshold` is not set.
CODE_THRESHOLD = 0.5

#: Pass mark of a G-Eval metric without `threshold` (upstream's `threshold or 0.5`).
GEVAL_THRESHOLD = 0.5

#: Pass mark of groundedness / relevance / coherence / fluency without `threshold`: 3 on
#: their 1–5 scale (azure-ai-evaluation's default), scaled to 0..1 as upstream does (÷5).
#: Upstream passes any score above 0 there, which passes every answer (docs/grading.md).
JUDGED_STANDARD_THRESHOLD = 0.6


def judged_rule(default: float) -> str:
    """How hover states the rule of an LLM-judged metric whose default pass mark is
    `default`."""
    return (
        "LLM-judged: the judge is `model:` here, else `evaluations.model`, else the agent's "
        "`model:`; passes when the judge's score (0–1) reaches `threshold` (default "
        f"`{default:g}`)."
    )


@dataclass(frozen=True, slots=True)
class MetricOption:
    """A key only its metric reads: the schema's field is built from this (its type is the
    default's, bool or float)."""

    name: str
    default: bool | float
    doc: str
    #: A number that must be >= 0 (a tolerance): the schema's minimum and its check.
    non_negative: bool = False


@dataclass(frozen=True, slots=True)
class MetricSpec:
    """One metric of the catalogue.

    `name` is what the YAML names it by: the `metric:` of a standard metric, the
    `metric_type:` of a rag metric, the kind itself for `geval` and `code` (their instances
    are named by the user). `options` are the keys only this metric reads (its options
    model). `evaluator` names the engine's evaluator that grades it
    (`engine.evaluators.registry`); None when a judge or the user's code does. `rule` says
    when it passes; `{option}` placeholders are filled with the option's default as YAML
    spells it (see `rule_text`).
    """

    name: str
    kind: MetricKind
    grading: Grading
    doc: str
    rule: str
    needs_ground_truth: bool = False
    needs_retrieval_context: bool = False
    default_threshold: float | None = None
    options: tuple[MetricOption, ...] = ()
    evaluator: str | None = None

    @property
    def llm_judged(self) -> bool:
        return self.grading is Grading.LLM_JUDGE

    def rule_text(self) -> str:
        """`rule` with each option's default filled in."""
        return self.rule.format(**{opt.name: yaml_text(opt.default) for opt in self.options})


def yaml_text(value: bool | float) -> str:
    """A default as YAML writes it: `false`, `0`, `0.5`, `1e-6`."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return re.sub(r"e([+-])0*(\d)", r"e\1\2", f"{value:g}").replace("e+", "e")


def _overlap(name: str, label: str, doc: str) -> MetricSpec:
    return MetricSpec(
        name=name,
        kind="standard",
        grading=Grading.TEXT_OVERLAP,
        doc=doc,
        rule=f"text overlap ({label}) with `ground_truth`; passes at `threshold`. No judge needed.",
        needs_ground_truth=True,
        default_threshold=NLP_THRESHOLD,
        evaluator="text_overlap",
    )


def _judged(name: str, doc: str, *, retrieval: bool = False) -> MetricSpec:
    return MetricSpec(
        name=name,
        kind="standard",
        grading=Grading.LLM_JUDGE,
        doc=doc,
        rule=judged_rule(JUDGED_STANDARD_THRESHOLD),
        needs_retrieval_context=retrieval,
        default_threshold=JUDGED_STANDARD_THRESHOLD,
    )


def _rag(name: str, doc: str, *, ground_truth: bool = False, retrieval: bool = True) -> MetricSpec:
    return MetricSpec(
        name=name,
        kind="rag",
        grading=Grading.LLM_JUDGE,
        doc=doc,
        rule=judged_rule(RAG_THRESHOLD),
        needs_ground_truth=ground_truth,
        needs_retrieval_context=retrieval,
        default_threshold=RAG_THRESHOLD,
    )


_STANDARD = (
    _judged("groundedness", "Is the response supported by the given context?", retrieval=True),
    _judged("relevance", "Does the response answer the input?"),
    _judged("coherence", "Is the response logically ordered and consistent?"),
    _judged("fluency", "Is the response well-formed, readable language?"),
    _overlap("bleu", "BLEU", "BLEU n-gram overlap with `ground_truth`, 0–1 (the `nlp` extra)."),
    _overlap("rouge", "ROUGE", "ROUGE-L F1 overlap with `ground_truth`, 0–1 (the `nlp` extra)."),
    _overlap(
        "meteor",
        "METEOR",
        "METEOR overlap with `ground_truth`, 0–1, exact and stem matches (the `nlp` extra).",
    ),
    MetricSpec(
        name="equality",
        kind="standard",
        grading=Grading.DETERMINISTIC,
        doc="The response equals `ground_truth` as text; flags relax case, spaces, punctuation.",
        rule="deterministic: passes (score 1.0) when the response equals `ground_truth` with "
        "strict `==`. Flags: `case_insensitive` (casefold), `strip_whitespace` (trim, collapse "
        "runs), `strip_punctuation` (drop ASCII punctuation) — all default "
        "`{case_insensitive}`.",
        needs_ground_truth=True,
        default_threshold=BINARY_THRESHOLD,
        options=(
            MetricOption(
                "case_insensitive", False, "equality: compare lower-cased text. Default false."
            ),
            MetricOption(
                "strip_whitespace",
                False,
                "equality: trim and collapse runs of white space first. Default false.",
            ),
            MetricOption(
                "strip_punctuation",
                False,
                "equality: remove ASCII punctuation before comparing. Default false.",
            ),
        ),
        evaluator="equality",
    ),
    MetricSpec(
        name="numeric",
        kind="standard",
        grading=Grading.DETERMINISTIC,
        doc="The response and `ground_truth`, read as numbers, agree within a tolerance.",
        rule="deterministic: passes (score 1.0) when the response is a bare number within "
        "`absolute_tolerance` (default `{absolute_tolerance}`) or `relative_tolerance` × "
        "|expected| (default `{relative_tolerance}`, off) of `ground_truth`. `accept_percent` "
        "reads a trailing `%` as ÷100; `accept_thousands_separators` reads digits grouped by "
        "`,` `_` U+00A0 U+202F U+2009 — both default `{accept_percent}`.",
        needs_ground_truth=True,
        default_threshold=BINARY_THRESHOLD,
        options=(
            MetricOption(
                "absolute_tolerance",
                1e-6,
                "numeric: pass when |actual − expected| ≤ absolute_tolerance. "
                "Default 1e-6 (float noise only).",
                non_negative=True,
            ),
            MetricOption(
                "relative_tolerance",
                0.0,
                "numeric: also pass when |actual − expected| ≤ relative_tolerance × "
                "|expected|. Default 0 (off).",
                non_negative=True,
            ),
            MetricOption(
                "accept_percent", False, 'numeric: read a trailing "%" as ÷100. Default false.'
            ),
            MetricOption(
                "accept_thousands_separators",
                False,
                "numeric: read digits grouped in threes by `,`, `_` or a no-break, "
                "narrow no-break or thin space. Default false.",
            ),
        ),
        evaluator="numeric",
    ),
)

_RAG = (
    _rag("faithfulness", "Is every claim of the response backed by the context?"),
    _rag("contextual_relevancy", "How much of the retrieved context is relevant to the input?"),
    _rag(
        "contextual_precision",
        "Are the passages that matter for `ground_truth` ranked first?",
        ground_truth=True,
    ),
    _rag(
        "contextual_recall",
        "Does the retrieved context hold everything `ground_truth` says?",
        ground_truth=True,
    ),
    # answer_relevancy judges the answer against the input only; the others read the
    # retrieved passages (`retrieval_context`, or an `is_retrieval` MCP server's results).
    _rag("answer_relevancy", "Does the response address the input?", retrieval=False),
)

GEVAL = MetricSpec(
    name="geval",
    kind="geval",
    grading=Grading.LLM_JUDGE,
    doc="Custom criteria in plain language, scored by an LLM judge (G-Eval).",
    rule=judged_rule(GEVAL_THRESHOLD),
    default_threshold=GEVAL_THRESHOLD,
)
CODE = MetricSpec(
    name="code",
    kind="code",
    grading=Grading.USER_CODE,
    doc="A Python grader `module.path:callable`, called with the turn's context.",
    rule="passes when the grader says so, or when the score it returns reaches `threshold`.",
    default_threshold=CODE_THRESHOLD,
)

#: The values of a standard metric's `metric:` key, from the entries above: a Literal at run
#: time, so the JSON Schema's enum and the loader's messages list them. mypy cannot read a
#: Literal built from data, so to it a name is a `str`.
if TYPE_CHECKING:
    StandardMetricName = str
else:
    StandardMetricName = Literal[tuple(metric.name for metric in _STANDARD)]

# The values of a rag metric's `metric_type:` key, from the entries above (an enum named
# RAGMetricType, as the JSON Schema has always called it). To mypy a member-less StrEnum: a
# value is read as `.value`. (A comment, not a docstring: pydantic would put a docstring into
# the printed JSON Schema.)
if TYPE_CHECKING:

    class RAGMetricType(StrEnum):
        pass

else:
    RAGMetricType = StrEnum("RAGMetricType", [(m.name.upper(), m.name) for m in _RAG])

#: Standard metrics by `metric:` name, in catalogue order.
STANDARD_METRICS: Mapping[str, MetricSpec] = MappingProxyType({m.name: m for m in _STANDARD})
#: Rag metrics by `metric_type:` value, in catalogue order.
RAG_METRICS: Mapping[str, MetricSpec] = MappingProxyType({m.name: m for m in _RAG})
#: Every entry of the catalogue.
CATALOGUE: tuple[MetricSpec, ...] = (*_STANDARD, GEVAL, *_RAG, CODE)

#: Standard metrics whose score comes from an LLM judge.
LLM_JUDGED_METRICS: tuple[str, ...] = tuple(m.name for m in _STANDARD if m.llm_judged)
#: Every option a standard metric reads, in catalogue order.
STANDARD_OPTION_SPECS: tuple[MetricOption, ...] = tuple(
    option for m in _STANDARD for option in m.options
)
#: Every option a standard metric reads, with its default, in catalogue order.
STANDARD_OPTIONS: Mapping[str, bool | float] = MappingProxyType(
    {option.name: option.default for option in STANDARD_OPTION_SPECS}
)


def _names(names: list[str], last: str) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + f" {last} " + names[-1]


def standard_metric_description() -> str:
    """The description of `metric:`: the names grouped by how they are graded."""
    groups: dict[Grading, list[str]] = {}
    for metric in _STANDARD:
        groups.setdefault(metric.grading, []).append(metric.name)
    parts = [f"{', '.join(names)} ({grading.value})" for grading, names in groups.items()]
    return "Which built-in metric: " + "; ".join(parts) + "."


def rag_metric_description() -> str:
    """The description of `metric_type:`."""
    return _names(list(RAG_METRICS), "or") + "."


def judge_model_description() -> str:
    """The description of a standard metric's `model:`: which metrics ignore it."""
    unjudged = [m.name for m in _STANDARD if not m.llm_judged]
    return f"Judge model for this metric (ignored by {_names(unjudged, 'and')})."
