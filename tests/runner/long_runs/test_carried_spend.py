"""runner/run_budget/carried_spend.py: what a resumed run's journaled cases spent — sent turns
only (a skipped turn was never sent), priced at the list per the case's model."""

from __future__ import annotations

import pytest

from holodeck_lsp.runner.pricing.price_list import price_list
from holodeck_lsp.runner.run_budget.carried_spend import carried_spend
from holodeck_lsp.schema.results import TestResult, TokenUsage, TurnResult

USAGE = TokenUsage(prompt_tokens=10, completion_tokens=5, total_tokens=15)


def _turn(index: int, *, skipped: bool = False, usage: TokenUsage | None = USAGE) -> TurnResult:
    return TurnResult.model_validate(
        {"turn_index": index, "input": "q", "passed": True, "skipped": skipped,
         "token_usage": usage}
    )  # fmt: skip


def _case(turns: list[TurnResult] | None, model: str | None = None) -> TestResult:
    return TestResult.model_validate(
        {"test_name": "c", "test_input": "q", "passed": True, "turns": turns,
         "token_usage": USAGE, "model": model}
    )  # fmt: skip


def test_sent_turns_are_counted_and_priced_per_model() -> None:
    prices = price_list({"openai:house": {"input": 1000, "output": 1000}})
    finished = [
        _case(None),  # single-turn: one turn at the default model
        _case([_turn(0), _turn(1, skipped=True), _turn(2, usage=None)]),
        _case([_turn(0)], model="openai:unpriced-model"),
    ]
    spent = carried_spend(finished, prices, "openai:house")
    assert spent.turns == 4  # the skipped turn was never sent
    assert spent.priced_turns == 2  # no usage / no price: counted, not priced
    assert spent.cost_usd == pytest.approx(2 * 15 * 1000 / 1e6)


def test_nothing_finished_spent_nothing() -> None:
    spent = carried_spend([], price_list({}), "openai:gpt-4o-mini")
    assert (spent.turns, spent.priced_turns, spent.cost_usd) == (0, 0, 0.0)
