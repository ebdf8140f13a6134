"""Pass rates over `--repeat N`: how often each turn (and case) passed in its N independent
sessions, per model — and which ones are flaky (passed in some sessions, failed in others).

Pure functions over a report's results (any number of models and repeats; a plain run is
one model with N = 1). A turn never sent (skipped: the session was lost, the run cancelled)
counts as a failed run of it: the turn did not pass in that session. Used by the terminal
summary and the reports, and reusable by `compare` (a turn going from 5/5 to 3/5).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from holodeck_lsp.schema.results import TestResult

#: (model, case index, turn index); the model is None in reports older than matrices.
TurnKey = tuple[str | None, int, int]
CaseKey = tuple[str | None, int]


@dataclass(frozen=True, slots=True)
class Rate:
    passed: int
    runs: int

    @property
    def flaky(self) -> bool:
        """Passed and failed over the repeats."""
        return 0 < self.passed < self.runs

    @property
    def always(self) -> bool:
        return self.runs > 0 and self.passed == self.runs

    @property
    def fraction(self) -> float:
        return self.passed / self.runs if self.runs else 0.0

    def __str__(self) -> str:
        return f"{self.passed}/{self.runs}"


@dataclass(frozen=True, slots=True)
class ModelRates:
    """One model's figures over the repeats."""

    model: str | None
    cases: int
    #: The chance one session of a case passes, averaged over the cases (passes / runs).
    pass_at_1: float
    #: Cases that passed in every one of their sessions.
    passed_all: int
    flaky_cases: int
    flaky_turns: int


def turn_rates(results: Iterable[TestResult]) -> dict[TurnKey, Rate]:
    """Per (model, case, turn): passes over sessions, in first-seen order."""
    counts: dict[TurnKey, list[int]] = {}
    for result in results:
        case = result.test_index if result.test_index is not None else -1
        for turn in result.turn_results():
            tally = counts.setdefault((result.model, case, turn.turn_index), [0, 0])
            tally[0] += int(turn.passed and not turn.skipped)
            tally[1] += 1
    return {key: Rate(passed, runs) for key, (passed, runs) in counts.items()}


def case_rates(results: Iterable[TestResult]) -> dict[CaseKey, Rate]:
    """Per (model, case): passes over sessions, in first-seen order."""
    counts: dict[CaseKey, list[int]] = {}
    for result in results:
        case = result.test_index if result.test_index is not None else -1
        tally = counts.setdefault((result.model, case), [0, 0])
        tally[0] += int(result.passed)
        tally[1] += 1
    return {key: Rate(passed, runs) for key, (passed, runs) in counts.items()}


def model_rates(results: list[TestResult]) -> list[ModelRates]:
    """Per model, in first-seen order."""
    cases = case_rates(results)
    turns = turn_rates(results)
    models = list(dict.fromkeys(model for model, _ in cases))
    out = []
    for model in models:
        mine = [rate for (owner, _), rate in cases.items() if owner == model]
        out.append(
            ModelRates(
                model=model,
                cases=len(mine),
                pass_at_1=sum(rate.fraction for rate in mine) / len(mine) if mine else 0.0,
                passed_all=sum(rate.always for rate in mine),
                flaky_cases=sum(rate.flaky for rate in mine),
                flaky_turns=sum(
                    rate.flaky for (owner, _, _), rate in turns.items() if owner == model
                ),
            )
        )
    return out
