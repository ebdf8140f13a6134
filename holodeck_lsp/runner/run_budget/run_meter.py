"""What a run has spent so far, kept from its progress events: sent turns, the agent's tokens
and their cost at the price list, and the turns the cases in flight still have to send.

`RunMeter` sits in front of the caller's progress sink: it fills in `cost_usd` on each turn
and case result it passes on, so every display (the console's totals line, the editor's
progress) shows the same cost without a price list of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from holodeck_lsp.runner.execution.events import CaseRef, ProgressSink
from holodeck_lsp.runner.pricing.costs import usage_cost
from holodeck_lsp.runner.pricing.price_list import PriceList
from holodeck_lsp.schema.results import TestResult, TokenUsage, TurnResult


@dataclass
class Spent:
    """Totals so far. `cost_usd` covers the priced models only; `unpriced` counts the turns
    whose model has no price (their cost is not computed)."""

    turns: int = 0
    tokens: int = 0
    cost_usd: float = 0.0
    unpriced: int = 0
    cases_started: int = 0
    cases_finished: int = 0
    #: Per case in flight: the turns it has yet to send.
    turns_left: dict[tuple[int, str | None, int | None], int] = field(default_factory=dict)

    @property
    def in_flight(self) -> int:
        return len(self.turns_left)


class RunMeter:
    def __init__(self, inner: ProgressSink | None, prices: PriceList, default_model: str) -> None:
        self._inner = inner
        self._prices = prices
        self._default_model = default_model
        self.spent = Spent()

    def _cost(self, case: CaseRef, usage: TokenUsage | None) -> float | None:
        return usage_cost(usage, self._prices.lookup(case.model or self._default_model))

    def case_started(self, case: CaseRef) -> None:
        self.spent.cases_started += 1
        self.spent.turns_left[case.key] = case.turns
        if self._inner is not None:
            self._inner.case_started(case)

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        spent = self.spent
        if not turn.skipped:
            spent.turns += 1
        if case.key in spent.turns_left:
            spent.turns_left[case.key] = max(0, spent.turns_left[case.key] - 1)
        cost = self._cost(case, turn.token_usage)
        if turn.token_usage is not None:
            spent.tokens += turn.token_usage.total_tokens
            if cost is None:
                spent.unpriced += 1
            else:
                spent.cost_usd += cost
                turn = turn.model_copy(update={"cost_usd": cost})
        if self._inner is not None:
            self._inner.turn_finished(case, turn)

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self.spent.cases_finished += 1
        self.spent.turns_left.pop(case.key, None)
        cost = self._cost(case, result.token_usage)
        if cost is not None:
            result = result.model_copy(update={"cost_usd": cost})
        if self._inner is not None:
            self._inner.case_finished(case, result)
