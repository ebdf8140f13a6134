"""A run session's meter and budget, built from its request: the one place the session asks
about prices, so run_session.py only plugs them in."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from holodeck_lsp.runner.backends.overrides import OverrideError, with_backend_overrides
from holodeck_lsp.runner.execution.events import ProgressSink
from holodeck_lsp.runner.execution.executor import RunOptions
from holodeck_lsp.runner.models.model_matrix import model_label
from holodeck_lsp.runner.pricing.costs import priced_report
from holodeck_lsp.runner.pricing.price_list import PriceList, price_list
from holodeck_lsp.runner.run_budget.budget_stop import BudgetStop
from holodeck_lsp.runner.run_budget.carried_spend import carried_spend
from holodeck_lsp.runner.run_budget.run_meter import RunMeter
from holodeck_lsp.runner.run_request import Live, RunRequest
from holodeck_lsp.schema.results import TestReport


def budget_refusal(request: RunRequest, models: list[str]) -> str | None:
    """`--max-cost` with a model the price list has no price for cannot be kept: say so
    before anything is sent, with the fix."""
    if request.max_cost is None:
        return None
    prices = price_list(request.prices)
    missing = [model for model in models if prices.lookup(model) is None]
    if not missing:
        return None
    return (
        f"--max-cost needs a price for {', '.join(missing)}, and the price list has none: add "
        f"it to holodeck-lsp.yaml, e.g. `prices: {{{missing[0]}: {{input: 1.0, output: 2.0}}}}` "
        "(USD per million tokens), or use --max-turns"
    )


def live_budget_refusal(request: RunRequest) -> str | None:
    """`budget_refusal` for a live run before any backend is built: its models are known from
    the request, and a refusal should not wait for a model SDK's import (Semantic Kernel's
    takes seconds). A replayed run's models come from its recording: checked once its lanes
    are open."""
    if request.max_cost is None or not isinstance(request.answers, Live):
        return None
    if request.models:
        return budget_refusal(request, [ref.label for ref in request.models])
    try:
        agent, _ = with_backend_overrides(request.agent, request.backend_overrides)
    except OverrideError:
        return None  # said when the lane opens, in its words
    return budget_refusal(request, [model_label(agent)])


@dataclass
class SessionBudget:
    prices: PriceList
    default_model: str
    meter: RunMeter
    stop: BudgetStop | None

    @classmethod
    def start(
        cls, request: RunRequest, sink: ProgressSink | None, default_model: str, total: int
    ) -> SessionBudget:
        prices = price_list(request.prices)
        meter = RunMeter(sink, prices, default_model)
        stop = None
        if request.max_cost is not None or request.max_turns is not None:
            carried = carried_spend(request.finished.values(), prices, default_model)
            stop = BudgetStop(
                meter,
                total,
                max_cost=request.max_cost,
                max_turns=request.max_turns,
                carried=carried,
            )
        return cls(prices, default_model, meter, stop)

    def options(self, options: RunOptions) -> RunOptions:
        return dataclasses.replace(options, may_start=self.stop) if self.stop else options

    @property
    def reason(self) -> str | None:
        return self.stop.reason if self.stop is not None else None

    def report(self, report: TestReport) -> TestReport:
        """The report with its costs, and why it stopped early (then it is `interrupted`:
        resumable, like a run stopped with Ctrl-C)."""
        report = priced_report(report, self.prices, self.default_model)
        if self.reason is not None:
            report = report.model_copy(update={"stop_reason": self.reason, "interrupted": True})
        return report
