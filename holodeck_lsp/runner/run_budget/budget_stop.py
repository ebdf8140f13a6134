"""`--max-cost USD` and `--max-turns N`: stop starting cases before the budget would be
passed; the cases in flight finish (their turns are paid for already or nearly so).

Asked as each case takes its slot (`RunOptions.may_start`). The estimate is the cost of one
sent turn so far, times the turns still to come: the next case's, and those the cases in
flight have yet to send. Turns are known exactly from the plan (`CaseRef.turns`), so
`--max-turns` never passes its limit; the cost is an estimate, so `--max-cost` can be passed
by the spread of the cases in flight, never by more cases started. Until a turn has been
answered with token usage there is nothing to estimate from and cases start. A resumed run
counts what its journaled cases spent (`CarriedSpend`): the budget is the whole run's.
"""

from __future__ import annotations

from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.runner.run_budget.carried_spend import CarriedSpend
from holodeck_lsp.runner.run_budget.run_meter import RunMeter


class BudgetStop:
    def __init__(
        self,
        meter: RunMeter,
        total: int,
        *,
        max_cost: float | None,
        max_turns: int | None,
        carried: CarriedSpend | None = None,
    ) -> None:
        self._meter = meter
        self._carried = carried or CarriedSpend()
        self._total = total
        self.max_cost = max_cost
        self.max_turns = max_turns
        #: Why the run stopped starting cases, once it has.
        self.reason: str | None = None

    def __call__(self, case: CaseRef) -> str | None:
        if self.reason is None:
            self.reason = self._over(case)
        return self.reason

    def _over(self, case: CaseRef) -> str | None:
        spent, carried = self._meter.spent, self._carried
        coming = case.turns + sum(spent.turns_left.values())
        started = spent.cases_started
        turns = spent.turns + carried.turns
        if self.max_turns is not None and turns + coming > self.max_turns:
            return (
                f"stopped: --max-turns {self.max_turns} would be passed after {started} of "
                f"{self._total} cases"
            )
        priced_turns = spent.turns - spent.unpriced + carried.priced_turns
        cost = spent.cost_usd + carried.cost_usd
        if self.max_cost is not None and priced_turns > 0 and cost > 0:
            per_turn = cost / priced_turns
            if cost + per_turn * coming > self.max_cost:
                return (
                    f"stopped: --max-cost {self.max_cost:.2f} USD would be passed after "
                    f"{started} of {self._total} cases"
                )
        return None
