"""What a resumed run's journaled cases spent before this process started, so `--max-cost` /
`--max-turns` keep to the whole run's budget, not this invocation's: the report a resumed run
writes is the whole run's (its cost included), and a budget is read against that figure."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from holodeck_lsp.runner.pricing.costs import usage_cost
from holodeck_lsp.runner.pricing.price_list import PriceList
from holodeck_lsp.schema.results import TestResult, TokenUsage


@dataclass(frozen=True, slots=True)
class CarriedSpend:
    #: Turns sent (skipped turns were never sent and cost nothing).
    turns: int = 0
    #: Of those, the turns whose model has a price and whose usage is known.
    priced_turns: int = 0
    cost_usd: float = 0.0


def carried_spend(
    finished: Iterable[TestResult], prices: PriceList, default_model: str
) -> CarriedSpend:
    turns = priced = 0
    cost = 0.0
    for result in finished:
        price = prices.lookup(result.model or default_model)
        usages: list[TokenUsage | None]
        if result.turns:
            usages = [turn.token_usage for turn in result.turns if not turn.skipped]
        else:
            usages = [result.token_usage]
        turns += len(usages)
        for usage in usages:
            spent = usage_cost(usage, price)
            if spent is not None:
                priced += 1
                cost += spent
    return CarriedSpend(turns, priced, cost)
