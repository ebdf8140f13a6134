"""A run's statistics as the JSON report writes them (`"statistics"`, docs/reports.md,
"Statistics"): every pass rate with its 95 % Wilson interval, pass@k and pass^k over repeats,
and each model's tokens, cost and turn latency. Derived from the results — computed by
engine/run_statistics.py each time a report is written, never read back as a source.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class _Figures(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RateInterval(_Figures):
    """`passed` of `measured`, as a percent with its interval (percent points)."""

    passed: int = Field(ge=0)
    measured: int = Field(ge=0)
    rate: float = Field(description="Percent; 0 when nothing was measured.")
    low: float = Field(description="The 95 % Wilson interval's lower end, percent.")
    high: float = Field(description="Its upper end, percent.")


class TurnIndexRate(RateInterval):
    """The turns at one index (turn 0, 1, … of every case that has one)."""

    turn_index: int = Field(ge=0)


class CaseRepeats(_Figures):
    """One case's sessions under `--repeat N`."""

    case: str
    passed: int = Field(ge=0)
    runs: int = Field(ge=0)
    pass_hat_k: list[float] = Field(description="pass^k for k = 1 … runs.")
    pass_at_k: list[float] = Field(description="pass@k for k = 1 … runs.")


class ModelStatistics(_Figures):
    """One model's figures (`model` None: the results name no model, an older report)."""

    model: str | None
    cases: RateInterval = Field(description="Case sessions passed of those measured.")
    turns_passed: int = Field(ge=0)
    turns_measured: int = Field(ge=0)
    by_turn_index: list[TurnIndexRate] = Field(default_factory=list)
    pass_hat_k: list[float] = Field(
        default_factory=list, description="The suite's pass^k for k = 1 … repeats (mean of cases)."
    )
    pass_at_k: list[float] = Field(
        default_factory=list, description="The suite's pass@k for k = 1 … repeats."
    )
    repeat_cases: list[CaseRepeats] = Field(default_factory=list)
    tokens: int | None = Field(default=None, description="The agent's tokens (None: not reported).")
    cost_usd: float | None = Field(default=None, description="None: some result has no price.")
    latency_p50_ms: float | None = Field(default=None, description="Median turn time.")
    latency_p95_ms: float | None = Field(default=None, description="95th percentile turn time.")


class RunStatistics(_Figures):
    confidence: float = 0.95
    suite: RateInterval
    models: list[ModelStatistics] = Field(default_factory=list)
