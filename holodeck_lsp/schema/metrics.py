"""Evaluation metrics: built-in `standard` metrics (incl. `equality` / `numeric`), `geval`,
`rag` and user `code` graders, and the `evaluations:` block that lists them."""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Annotated, Any, Literal

from pydantic import AfterValidator, Discriminator, Field, Tag, create_model, field_validator

from holodeck_lsp.schema.base import NonBlankStr, StrictModel, fault
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.llm import LLMProvider
from holodeck_lsp.schema.metric_catalogue import (
    CODE_THRESHOLD,
    KIND_DOCS,
    LLM_JUDGED_METRICS,
    METRIC_TYPES,
    RAG_THRESHOLD,
    STANDARD_OPTION_SPECS,
    MetricOption,
    RAGMetricType,
    StandardMetricName,
    judge_model_description,
    rag_metric_description,
    standard_metric_description,
    yaml_text,
)
from holodeck_lsp.schema.optimizer import OptimizerConfig

# The catalogue's names, importable from here as before.
__all__ = [
    "GEVAL_PARAMS",
    "GRADER_PATH",
    "LLM_JUDGED_METRICS",
    "METRIC_TYPES",
    "AgentMetric",
    "AnyMetric",
    "CaseMetric",
    "CodeMetric",
    "EvaluationConfig",
    "GEvalMetric",
    "RAGMetric",
    "RAGMetricType",
    "StandardMetric",
    "StandardMetricName",
]

GEVAL_PARAMS = ("input", "actual_output", "expected_output", "context", "retrieval_context")
#: `module.path:callable` — the grader reference format HoloDeck accepts.
GRADER_PATH = re.compile(r"^[\w.]+:[\w_]+$")
_RESPONSE_PATH = re.compile(r"^[A-Za-z_][\w-]*(?:\[\d+\])*(?:\.[A-Za-z_][\w-]*(?:\[\d+\])*)*$")


def _tolerance(value: float) -> float:
    if math.isnan(value) or value < 0:
        raise fault(
            Code.BAD_TOLERANCE,
            f"a tolerance must be a number >= 0, got {value}; use 0 for exact comparison",
        )
    return value


class _StandardMetricHead(StrictModel):
    """The keys every standard metric reads; its own options follow (`_StandardOptions`)."""

    type: Literal["standard"] = Field(default="standard", description=KIND_DOCS["standard"])
    metric: StandardMetricName = Field(description=standard_metric_description())
    threshold: float | None = Field(
        default=None, description="Minimum score for the metric to pass."
    )
    enabled: bool = Field(default=True, description="`false` skips this metric. Default true.")
    scale: int | None = Field(default=None, gt=0, description="Score scale, e.g. 5 for 1–5.")
    model: LLMProvider | None = Field(default=None, description=judge_model_description())
    fail_on_error: bool = Field(
        default=False, description="Fail the test when the metric itself errors. Default false."
    )
    retry_on_failure: int | None = Field(
        default=None, ge=1, le=3, description="Retries when evaluation fails, 1–3."
    )
    timeout_ms: int | None = Field(
        default=None, gt=0, description="Timeout of one judge call in milliseconds (> 0)."
    )
    custom_prompt: NonBlankStr | None = Field(
        default=None, description="Replaces the judge's evaluation prompt."
    )

    def flag(self, option: str) -> bool:
        """The value of a yes/no option of the catalogue (e.g. `case_insensitive`)."""
        value = getattr(self, option)
        if not isinstance(value, bool):
            raise TypeError(f"{option} is not a yes/no option")
        return value

    def number(self, option: str) -> float:
        """The value of a numeric option of the catalogue (e.g. `absolute_tolerance`)."""
        value = getattr(self, option)
        if isinstance(value, bool) or not isinstance(value, int | float):
            raise TypeError(f"{option} is not a numeric option")
        return float(value)


def _option_field(option: MetricOption) -> tuple[Any, Any]:
    """The schema field of a catalogue option: its type is its default's."""
    field = Field(default=option.default, description=option.doc)
    if isinstance(option.default, bool):
        return bool, field
    if option.non_negative:
        minimum = Field(json_schema_extra={"minimum": 0})
        return Annotated[float, minimum, AfterValidator(_tolerance)], field
    return float, field


# The options of every standard metric, built from the catalogue's entries (one registration
# per metric: schema/metric_catalogue.py). mypy cannot see fields made at run time, so the
# evaluators read them through `flag()` and `number()`.
if TYPE_CHECKING:
    _StandardOptions = _StandardMetricHead
else:
    _StandardOptions = create_model(
        "_StandardOptions",
        __base__=_StandardMetricHead,
        __module__=__name__,
        **{option.name: _option_field(option) for option in STANDARD_OPTION_SPECS},
    )


class StandardMetric(_StandardOptions):
    """A built-in metric, chosen by `metric:`. `equality` and `numeric` are deterministic;
    `bleu` / `rouge` / `meteor` compare text; the others ask an LLM judge."""

    response_path: str | None = Field(
        default=None,
        description="Grade one value of a JSON response instead of the whole text: dotted "
        "keys with [index] parts, e.g. `answer`, `result.value`, `items[0].score`.",
    )

    @field_validator("response_path")
    @classmethod
    def _response_path_form(cls, value: str | None) -> str | None:
        if value is not None and not _RESPONSE_PATH.match(value):
            raise fault(
                Code.PATTERN_MISMATCH,
                f"response_path {value!r} is not a path like `answer`, `result.value` or "
                "`items[0].score`",
            )
        return value


class GEvalMetric(StrictModel):
    """A custom LLM-judged criterion written in plain language (G-Eval)."""

    type: Literal["geval"] = Field(default="geval", description=KIND_DOCS["geval"])
    name: NonBlankStr = Field(description="Metric name shown in reports, e.g. `Helpfulness`.")
    criteria: NonBlankStr = Field(description="What the judge checks, in plain language.")
    evaluation_steps: list[str] | None = Field(
        default=None, description="Explicit judging steps; derived from `criteria` if absent."
    )
    evaluation_params: list[str] = Field(
        default_factory=lambda: ["actual_output"],
        description="Which fields the judge sees: " + ", ".join(GEVAL_PARAMS) + ".",
    )
    strict_mode: bool = Field(default=False, description="Score only 0 or 1. Default false.")
    threshold: float | None = Field(
        default=None, ge=0.0, le=1.0, description="Minimum passing score, 0.0–1.0."
    )
    model: LLMProvider | None = Field(default=None, description="Judge model for this metric.")
    enabled: bool = Field(default=True, description="`false` skips this metric.")
    fail_on_error: bool = Field(
        default=False, description="Fail the test when the judge call errors."
    )

    @field_validator("evaluation_params")
    @classmethod
    def _known_params(cls, value: list[str]) -> list[str]:
        if not value:
            raise fault(Code.TOO_MANY_ITEMS, "evaluation_params must list at least one field")
        unknown = sorted(set(value) - set(GEVAL_PARAMS))
        if unknown:
            raise fault(
                Code.INVALID_CHOICE,
                f"unknown evaluation_params {unknown}; choose from {', '.join(GEVAL_PARAMS)}",
            )
        return value


class RAGMetric(StrictModel):
    """An LLM-judged retrieval-augmented-generation metric over `retrieval_context`."""

    type: Literal["rag"] = Field(default="rag", description=KIND_DOCS["rag"])
    metric_type: RAGMetricType = Field(description=rag_metric_description())
    threshold: float = Field(
        default=RAG_THRESHOLD,
        ge=0.0,
        le=1.0,
        description=f"Minimum passing score, 0.0–1.0. Default {yaml_text(RAG_THRESHOLD)}.",
    )
    include_reason: bool = Field(default=True, description="Keep the judge's reasoning.")
    model: LLMProvider | None = Field(default=None, description="Judge model for this metric.")
    enabled: bool = Field(default=True, description="`false` skips this metric.")
    fail_on_error: bool = Field(
        default=False, description="Fail the test when the judge call errors."
    )


class CodeMetric(StrictModel):
    """A user-written Python grader, referenced as `module.path:callable`.

    The grader runs in-process with full Python privileges: only reference code you trust.
    """

    type: Literal["code"] = Field(default="code", description=KIND_DOCS["code"])
    grader: str = Field(
        description="Import path `module.path:callable`, resolved relative to the agent's "
        "folder when the file is loaded, e.g. `graders:turn_program_equivalence`.",
        json_schema_extra={"pattern": GRADER_PATH.pattern},
    )
    threshold: float | None = Field(
        default=None,
        description="Pass mark for a grader that returns a bare score (default "
        f"{yaml_text(CODE_THRESHOLD)}).",
    )
    enabled: bool = Field(default=True, description="`false` skips this grader.")
    fail_on_error: bool = Field(
        default=False,
        description="When true a grader exception fails the whole test case, not only "
        "the turn. Default false.",
    )
    name: str | None = Field(
        default=None, description="Name in reports; defaults to the callable's name."
    )

    @field_validator("grader")
    @classmethod
    def _grader_form(cls, value: str) -> str:
        if not GRADER_PATH.match(value):
            raise fault(
                Code.BAD_GRADER_PATH,
                f"grader {value!r} is not of the form `module.path:callable` (e.g. "
                "`graders:turn_program_equivalence`)",
            )
        return value

    @property
    def module(self) -> str:
        return self.grader.partition(":")[0]

    @property
    def callable_name(self) -> str:
        return self.grader.partition(":")[2]

    @property
    def display_name(self) -> str:
        return self.name or self.callable_name


def _declared_type(value: Any) -> str | None:
    if isinstance(value, dict):
        kind = value.get("type")
        return f"<{kind}>" if kind in METRIC_TYPES else None
    if isinstance(value, StrictModel):
        return f"<{getattr(value, 'type', '')}>"
    return None


def _inferred_type(value: Any) -> str | None:
    """Case- and turn-level metrics may omit `type`; HoloDeck then takes the first model
    the mapping fits. The keys that only one kind has decide the same way."""
    declared = _declared_type(value)
    if declared is not None or not isinstance(value, dict):
        return declared
    if "type" in value:
        return None
    if "grader" in value:
        return "<code>"
    if "metric_type" in value:
        return "<rag>"
    if "criteria" in value or ("name" in value and "metric" not in value):
        return "<geval>"
    return "<standard>"


_TAGGED = (
    Annotated[StandardMetric, Tag("<standard>")]
    | Annotated[GEvalMetric, Tag("<geval>")]
    | Annotated[RAGMetric, Tag("<rag>")]
    | Annotated[CodeMetric, Tag("<code>")]
)
_NO_TYPE = "metric `type:` must be one of " + ", ".join(METRIC_TYPES)

#: An agent-level metric: `type:` is required.
AgentMetric = Annotated[
    _TAGGED,
    Discriminator(
        _declared_type, custom_error_type=Code.INVALID_CHOICE.value, custom_error_message=_NO_TYPE
    ),
]
#: A case- or turn-level metric: `type:` may be left out (defaults by shape).
CaseMetric = Annotated[
    _TAGGED,
    Discriminator(
        _inferred_type, custom_error_type=Code.INVALID_CHOICE.value, custom_error_message=_NO_TYPE
    ),
]
AnyMetric = StandardMetric | GEvalMetric | RAGMetric | CodeMetric


class EvaluationConfig(StrictModel):
    """`evaluations:` — the default metrics for every test case and their judge model."""

    model: LLMProvider | None = Field(
        default=None, description="Default judge model for LLM-judged metrics."
    )
    metrics: list[AgentMetric] = Field(
        description="Metrics applied to every test case (and every turn) that does not "
        "override them. Each needs `type:` standard, geval, rag or code."
    )
    optimizer: OptimizerConfig | None = Field(
        default=None, description="Settings for `holodeck test optimize`."
    )

    @field_validator("metrics")
    @classmethod
    def _not_empty(cls, value: list[AnyMetric]) -> list[AnyMetric]:
        if not value:
            raise fault(Code.TOO_MANY_ITEMS, "metrics must list at least one metric")
        return value
