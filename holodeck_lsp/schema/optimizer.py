"""`evaluations.optimizer:` — settings for HoloDeck's `holodeck test optimize` loop."""

from __future__ import annotations

from typing import Any, Literal, Self

from pydantic import Field, field_validator, model_validator

from holodeck_lsp.schema.base import NonBlankStr, StrictModel, fault
from holodeck_lsp.schema.codes import Code


class NumericAxis(StrictModel):
    """A numeric setting the optimizer may tune."""

    path: NonBlankStr = Field(description="Setting to tune, e.g. `model.temperature`.")
    type: Literal["float", "int", "categorical"] = Field(
        description="`float` / `int` take `range: [low, high]`; `categorical` a list of choices."
    )
    range: list[Any] = Field(description="[low, high] or the list of choices.")

    @model_validator(mode="after")
    def _range_shape(self) -> Self:
        if self.type == "categorical":
            if not self.range:
                raise fault(
                    Code.TOO_MANY_ITEMS, "a categorical axis needs at least one choice", at="range"
                )
            return self
        if len(self.range) != 2:
            raise fault(
                Code.INVALID_VALUE, f"a {self.type} axis needs range: [low, high]", at="range"
            )
        low, high = self.range
        try:
            ordered = low < high
        except TypeError:
            ordered = False
        if not ordered:
            raise fault(
                Code.INVALID_VALUE, f"range low ({low}) must be below high ({high})", at="range"
            )
        return self


class TextualAxis(StrictModel):
    """An instruction text the optimizer may rewrite."""

    path: NonBlankStr = Field(description="Text to rewrite, e.g. `instructions.inline`.")
    max_chars: int = Field(default=8000, gt=0, description="Longest rewrite allowed.")


class AxesConfig(StrictModel):
    numeric: list[NumericAxis] = Field(default_factory=list, description="Numeric axes.")
    textual: list[TextualAxis] = Field(default_factory=list, description="Textual axes.")


class PhaseConfig(StrictModel):
    max_trials: int = Field(gt=0, description="Most trials in one phase.")
    patience: int = Field(gt=0, description="Stop after this many trials without gain.")


class OptimizerConfig(StrictModel):
    """Weights and search space for the optimizer."""

    loss: dict[str, float] = Field(description="Metric name → positive weight of its loss.")
    axes: AxesConfig = Field(default_factory=AxesConfig, description="What may be tuned.")
    max_cycles: int = Field(default=3, gt=0, description="Numeric→textual cycles. Default 3.")
    numeric_phase: PhaseConfig = Field(
        default_factory=lambda: PhaseConfig(max_trials=10, patience=5),
        description="Budget of the numeric phase (default 10 trials, patience 5).",
    )
    textual_phase: PhaseConfig = Field(
        default_factory=lambda: PhaseConfig(max_trials=5, patience=3),
        description="Budget of the textual phase (default 5 trials, patience 3).",
    )
    min_delta: float = Field(default=0.01, ge=0.0, description="Least loss gain to accept.")
    seed: int = Field(default=42, description="Random seed of the numeric search.")

    @field_validator("loss")
    @classmethod
    def _positive_weights(cls, value: dict[str, float]) -> dict[str, float]:
        if not value:
            raise fault(Code.TOO_MANY_ITEMS, "loss needs at least one metric weight")
        if any(weight <= 0 for weight in value.values()):
            raise fault(Code.OUT_OF_RANGE, "loss weights must be greater than 0")
        return value
