"""The cost of token usage at a price, and a report with its costs filled in: per turn, per
case, per model and for the run (`cost_usd`, None where a model has no price)."""

from __future__ import annotations

from holodeck_lsp.runner.pricing.price_list import Price, PriceList
from holodeck_lsp.schema.results import ReportSummary, TestReport, TestResult, TokenUsage

_MILLION = 1_000_000


def usage_cost(usage: TokenUsage | None, price: Price | None) -> float | None:
    """USD for `usage` at `price`: prompt tokens at the input price, completion tokens at the
    output price (cache discounts are not applied: the list price is the upper bound)."""
    if usage is None or price is None:
        return None
    return (usage.prompt_tokens * price.input + usage.completion_tokens * price.output) / _MILLION


def _priced_case(result: TestResult, price: Price | None) -> TestResult:
    if price is None:
        return result
    update: dict[str, object] = {}
    if result.turns is not None:
        turns = [
            turn.model_copy(update={"cost_usd": usage_cost(turn.token_usage, price)})
            for turn in result.turns
        ]
        update["turns"] = turns
        costs = [turn.cost_usd for turn in turns if turn.cost_usd is not None]
        own = usage_cost(result.token_usage, price)
        update["cost_usd"] = own if own is not None else (sum(costs) if costs else None)
    else:
        update["cost_usd"] = usage_cost(result.token_usage, price)
    return result.model_copy(update=update)


def _summed(results: list[TestResult]) -> float | None:
    costs = [result.cost_usd for result in results if result.cost_usd is not None]
    return sum(costs) if costs else None


def unpriced_models(report: TestReport, prices: PriceList, default_model: str) -> list[str]:
    """The models of `report` the list has no price for (their cost is not computed)."""
    models = report.models or [default_model]
    return [model for model in models if prices.lookup(model) is None]


def priced_report(report: TestReport, prices: PriceList, default_model: str) -> TestReport:
    """`report` with `cost_usd` on its turns, cases and summaries; `default_model` is the
    agent's own model (a plain run's results name none)."""
    results = [
        _priced_case(result, prices.lookup(result.model or default_model))
        for result in report.results
    ]
    summaries: dict[str, ReportSummary] = {
        model: summary.model_copy(
            update={"cost_usd": _summed([r for r in results if r.model == model])}
        )
        for model, summary in report.model_summaries.items()
    }
    unpriced = unpriced_models(report, prices, default_model)
    # A run that mixes priced and unpriced models has no total: a partial sum would read as one.
    total = None if unpriced else _summed(results)
    summary = report.summary.model_copy(update={"cost_usd": total})
    environment = dict(report.environment)
    environment["prices_as_of"] = prices.as_of
    if unpriced:
        environment["cost_not_computed"] = ", ".join(unpriced)
    return report.model_copy(
        update={
            "results": results,
            "summary": summary,
            "model_summaries": summaries,
            "environment": environment,
        }
    )
