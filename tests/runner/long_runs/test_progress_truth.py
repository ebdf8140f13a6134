"""Progress that tells the truth on long runs: the terminal's totals line and the editor's
progress reports show the rate in turns a minute, the time left, cases in flight, errored
turns, requests waiting on a rate limit, and tokens and cost so far; the meter in front of
the sinks prices each turn, so every display shows the same cost."""

from __future__ import annotations

import io

from holodeck_lsp.commands.console.totals_bar import AggregateProgress
from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.runner.pricing.price_list import shipped_prices
from holodeck_lsp.runner.run_budget.budget_stop import BudgetStop
from holodeck_lsp.runner.run_budget.run_meter import RunMeter
from holodeck_lsp.schema.results import TestResult, TokenUsage, TurnResult
from holodeck_lsp.server.runs.progress_totals import RunTotals


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Recorder:
    def __init__(self) -> None:
        self.turns: list[TurnResult] = []

    def case_started(self, case: CaseRef) -> None: ...

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self.turns.append(turn)

    def case_finished(self, case: CaseRef, result: TestResult) -> None: ...


def _turn(passed: bool = True, errored: bool = False) -> TurnResult:
    usage = TokenUsage(prompt_tokens=1000, completion_tokens=100, total_tokens=1100)
    return TurnResult(turn_index=0, input="q", passed=passed, errored=errored, token_usage=usage)


def _ref(n: int, total: int = 100, turns: int = 1) -> CaseRef:
    return CaseRef(n + 1, total, n, f"c{n}", turns)


def test_the_meter_prices_each_turn_it_passes_on() -> None:
    inner = Recorder()
    meter = RunMeter(inner, shipped_prices(), "openai:gpt-4o")
    meter.case_started(_ref(0))
    meter.turn_finished(_ref(0), _turn())
    # 1,000 prompt at 2.50 + 100 completion at 10.00 per million
    assert inner.turns[0].cost_usd == 0.0035
    assert meter.spent.tokens == 1100 and meter.spent.in_flight == 1


def test_the_terminal_line_shows_waiting_tokens_and_cost() -> None:
    clock = Clock()
    waiting = [0]
    stream = io.StringIO()
    display = AggregateProgress(
        stream, cases=100, turns=100, clock=clock, width=400, waiting=lambda: waiting[0]
    )
    meter = RunMeter(display, shipped_prices(), "openai:gpt-4o")
    for n in range(8):
        meter.case_started(_ref(n))
    waiting[0] = 5
    for n in range(3):
        clock.now += 6.0
        meter.turn_finished(_ref(n), _turn(errored=n == 2, passed=n != 2))
        result = TestResult(test_name=f"c{n}", passed=n != 2, errored=n == 2)
        meter.case_finished(_ref(n), result)
    line = display.status_line()  # a StringIO is no UTF-8 terminal: ASCII marks
    assert line.startswith("[--------------------] 3/100 cases (1 errored) | 3/100 turns")
    # 3 turns in 18 s: 10 a minute; 97 left at that rate
    assert "5 running | 5 waiting on rate limit | 18s | 10 turns/min | ETA 9m42s" in line
    assert line.endswith("3,300 tokens | 0.0105 USD")
    assert "2 ok 0 FAIL 1 ERR" in line  # the errored turn counted apart
    waiting[0] = 0
    assert "waiting" not in display.status_line()


def test_an_unpriced_model_shows_cost_na() -> None:
    display = AggregateProgress(io.StringIO(), cases=2, turns=2, width=400, waiting=lambda: 0)
    meter = RunMeter(display, shipped_prices(), "ollama:llama3")
    meter.case_started(_ref(0, 2))
    meter.turn_finished(_ref(0, 2), _turn())
    assert display.status_line().endswith("1,100 tokens | cost n/a")


def test_the_editor_totals_on_a_long_run() -> None:
    clock = Clock()
    totals = RunTotals(total_turns=40, clock=clock, waiting=lambda: 2)
    for _ in range(4):
        totals.case_started()
    for errored in (False, True):
        clock.now += 3.0
        totals.turn_finished(_turn(errored=errored).model_copy(update={"cost_usd": 0.5}))
    assert totals.parts() == [
        "4 running", "20 turns/min", "ETA 1m54s", "1 errored", "2 waiting on rate limit",
        "2,200 tokens", "1.0000 USD",
    ]  # fmt: skip
    short = RunTotals(total_turns=3, clock=clock, waiting=lambda: 0)
    assert short.parts() == []  # a click on one case: no rate, nothing to say yet


def test_max_turns_counts_the_turns_in_flight() -> None:
    meter = RunMeter(None, shipped_prices(), "openai:gpt-4o")
    stop = BudgetStop(meter, 10, max_cost=None, max_turns=5)
    assert stop(_ref(0, 10, turns=2)) is None
    meter.case_started(_ref(0, 10, turns=2))
    assert stop(_ref(1, 10, turns=2)) is None
    meter.case_started(_ref(1, 10, turns=2))
    # 4 turns planned in flight: a third two-turn case would make 6
    assert stop(_ref(2, 10, turns=2)) == (
        "stopped: --max-turns 5 would be passed after 2 of 10 cases"
    )
    assert stop(_ref(3, 10, turns=1)) is not None  # once stopped, no case starts


def test_max_cost_waits_for_a_priced_turn_to_estimate() -> None:
    meter = RunMeter(None, shipped_prices(), "openai:gpt-4o")
    stop = BudgetStop(meter, 10, max_cost=0.01, max_turns=None)
    assert stop(_ref(0, 10)) is None  # nothing spent, nothing to estimate from
    meter.case_started(_ref(0, 10))
    meter.turn_finished(_ref(0, 10), _turn())  # 0.0035 USD
    meter.case_finished(_ref(0, 10), TestResult(test_name="c0", passed=True))
    assert stop(_ref(1, 10)) is None  # 0.0070 after the next
    meter.case_started(_ref(1, 10))
    meter.turn_finished(_ref(1, 10), _turn())
    meter.case_finished(_ref(1, 10), TestResult(test_name="c1", passed=True))
    # 0.0070 spent at 0.0035 a turn: the next case would make 0.0105 > 0.01
    assert stop(_ref(2, 10)) == "stopped: --max-cost 0.01 USD would be passed after 2 of 10 cases"
