"""The work of one run: every planned case once per model and per repeat, each an independent
case session (docs/running.md, "Model matrix and repeats"). The one place that says how many
sessions a run has (cases × models × repeats) and what a session's key is — the key the
journal records, a resumed run skips by, and the report orders by.

A session's key is `(case index, model, repeat)` where the model is named only in a matrix
(more than one model) and the repeat only with `--repeat N` (N > 1): a plain run's keys are
`(index, None, None)`, so its journal reads the same whatever model the agent names.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

from holodeck_lsp.runner.execution.events import CaseKey
from holodeck_lsp.runner.selection import PlannedCase


@dataclass(frozen=True, slots=True)
class WorkItem:
    """One case session: which model (lane), which repeat, which case."""

    #: The model's place among the run's models (0 for a plain run).
    lane: int
    #: 1..repeat.
    repeat: int
    #: The case's place among the planned cases.
    position: int
    case: PlannedCase
    key: CaseKey


@dataclass(frozen=True, slots=True)
class WorkPlan:
    """The planned cases, the models (their labels; empty: the agent's own model) and the
    repeats of a run."""

    planned: tuple[PlannedCase, ...]
    models: tuple[str, ...] = ()
    repeat: int = 1

    @classmethod
    def of(
        cls, planned: Iterable[PlannedCase], models: Sequence[str] = (), repeat: int = 1
    ) -> WorkPlan:
        return cls(tuple(planned), tuple(models), max(1, repeat))

    @property
    def lanes(self) -> int:
        """Models the run runs each case on: one for a plain run."""
        return max(1, len(self.models))

    @property
    def matrix(self) -> bool:
        return len(self.models) > 1

    @property
    def sessions(self) -> int:
        """Case sessions the run has in all: cases × models × repeats."""
        return len(self.planned) * self.lanes * self.repeat

    def key(self, case: PlannedCase, lane: int, repeat: int) -> CaseKey:
        """The session's key: the model only in a matrix, the repeat only with repeats."""
        return (
            case.index,
            self.models[lane] if self.matrix else None,
            repeat if self.repeat > 1 else None,
        )

    def items(self) -> list[WorkItem]:
        """Every session, case-major (a case runs on every model and repeat before the next
        case starts): cut short, a run has compared the models on the same cases first."""
        return [
            WorkItem(lane, number, position, case, self.key(case, lane, number))
            for position, case in enumerate(self.planned)
            for number in range(1, self.repeat + 1)
            for lane in range(self.lanes)
        ]

    def in_report_order(self) -> list[WorkItem]:
        """Every session as the report lists them: by model, then repeat, then file order."""
        return [
            WorkItem(lane, number, position, case, self.key(case, lane, number))
            for lane in range(self.lanes)
            for number in range(1, self.repeat + 1)
            for position, case in enumerate(self.planned)
        ]

    def left(self, finished: Mapping[CaseKey, object]) -> list[WorkItem]:
        """The sessions still to run (a resumed run has the others), case-major."""
        return [item for item in self.items() if item.key not in finished]
