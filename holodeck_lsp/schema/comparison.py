"""What comparing two runs finds, turn by turn: the contract between `compare` (which computes
it), the terminal / Markdown / JSON output, the HTML report's baseline highlighting and the
editor's regression marks. Pure data; computing it lives in engine/.

A turn is identified by (model, case name, turn index); its input's hash tells an edited turn
from the same turn run again. With repeats a side has a pass *rate* (passes of runs), and a
drop in the rate is a regression even when the turn passed at least once on both sides.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

ChangeKind = Literal[
    "regression",  # passed (or a higher pass rate) in the base, fails (or a lower rate) in head
    "fix",  # failed in the base, passes (or a higher rate) in head
    "new_reason",  # failed on both sides, for a different reason
    "score",  # same verdict, a numeric or judged metric's score moved past the threshold
    "edited",  # same case and turn index, different input: listed, not compared
    "added",  # only in head
    "removed",  # only in the base
    "not_run",  # in the base, never sent in head (interrupted, cancelled, session lost)
]


class _Frozen(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class MetricDelta(_Frozen):
    metric_name: str
    kind: str = "standard"
    base_score: float | None = None
    head_score: float | None = None

    @property
    def delta(self) -> float | None:
        if self.base_score is None or self.head_score is None:
            return None
        return self.head_score - self.base_score


class SideOfTurn(_Frozen):
    """One side's view of a turn (absent side: `None` on the change)."""

    passed: bool | None = Field(default=None, description="None: skipped / never sent.")
    passes: int = Field(default=0, ge=0, description="Repeats that passed.")
    runs: int = Field(default=0, ge=0, description="Repeats that ran (skipped ones excluded).")
    reason: str | None = Field(default=None, description="The first failure reason, if it failed.")
    input_hash: str = ""


class TurnChange(_Frozen):
    kind: ChangeKind
    case: str
    turn_index: int = Field(ge=0)
    model: str | None = None
    input: str = Field(default="", description="The turn's input (head's, else the base's).")
    base: SideOfTurn | None = None
    head: SideOfTurn | None = None
    metric_deltas: list[MetricDelta] = Field(default_factory=list)
    flaky: bool = Field(
        default=False,
        description="A regression of a turn that both passed and failed in one side's repeats "
        "or in the stored history: listed, never a regression on its own (the gate skips it).",
    )


class PairedStatistics(_Frozen):
    """Head against base on the turns both ran, per model (docs/reports.md, "Paired
    comparison"). Rates and the difference are percent points; `unit` says what the interval
    is over: `case` (one pass / fail per case: Newcombe's paired interval) or `turn` (turn pass
    rates, several turns or repeats per case: clustered by case)."""

    model: str | None = None
    unit: Literal["case", "turn"]
    cases: int = Field(ge=0, description="Cases with a turn both sides measured.")
    turns: int = Field(ge=0, description="Turns both sides measured.")
    base_rate: float
    head_rate: float
    difference: float = Field(description="head − base, percent points.")
    low: float
    high: float
    only_head: int = Field(ge=0, description="Turns head passed (more often) and base did not.")
    only_base: int = Field(ge=0, description="Turns base passed (more often) and head did not.")
    cases_head_better: int = Field(ge=0)
    cases_base_better: int = Field(ge=0)
    p_value: float = Field(ge=0.0, le=1.0, description="McNemar's exact test over the cases.")
    alpha: float = 0.05
    cases_needed: int | None = Field(
        default=None, description="About how many cases would tell, when this difference is not."
    )
    interval_method: str
    summary: str = Field(description="The finding in words.")

    @property
    def significant(self) -> bool:
        return self.p_value < self.alpha


class SideFigures(_Frozen):
    """A side's cost and speed over all its measured turns."""

    turns: int = Field(ge=0)
    tokens: int | None = None
    cost_usd: float | None = None
    latency_p50_ms: float | None = None
    latency_p95_ms: float | None = None


class RunRef(_Frozen):
    """Which run a side is: a stored run id, a tag, or a report file."""

    label: str = Field(description="What the user named (id, tag or path), for messages.")
    run_id: str | None = None
    report_path: str | None = None
    agent_path: str = ""
    agent_sha256: str | None = None
    started: str | None = None
    models: list[str] = Field(default_factory=list)
    interrupted: bool = False


class Comparison(_Frozen):
    base: RunRef
    head: RunRef
    changes: list[TurnChange] = Field(default_factory=list)
    unchanged_passing: int = Field(default=0, ge=0)
    unchanged_failing: int = Field(default=0, ge=0)
    score_threshold: float = Field(default=0.05, ge=0.0)
    notes: list[str] = Field(
        default_factory=list,
        description="Stated before the changes: different agent files, models, interrupted runs.",
    )
    statistics: list[PairedStatistics] = Field(default_factory=list)
    base_figures: SideFigures | None = None
    head_figures: SideFigures | None = None

    def of_kind(self, kind: ChangeKind) -> list[TurnChange]:
        return [change for change in self.changes if change.kind == kind]

    @property
    def has_regressions(self) -> bool:
        """Some turn regressed that is not flaky (a flaky turn is never one on its own)."""
        return any(change.kind == "regression" and not change.flaky for change in self.changes)

    @property
    def has_significant_regression(self) -> bool:
        """Some model's paired difference is negative and significant."""
        return any(s.significant and s.difference < 0 for s in self.statistics)
