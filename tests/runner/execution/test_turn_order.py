"""TurnOrder (runner/execution/turn_order.py) and OneCaseAtATime (runner/session_progress.py):
what the display hears, in which order, whatever order the graders finish in."""

from __future__ import annotations

from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.runner.execution.turn_order import TurnOrder
from holodeck_lsp.runner.session_progress import OneCaseAtATime
from holodeck_lsp.schema.results import TestResult, TurnResult


def turn(index: int) -> TurnResult:
    return TurnResult(turn_index=index, input=f"q{index}", passed=True)


def test_a_turn_graded_early_waits_for_the_earlier_ones() -> None:
    shown: list[int] = []
    order = TurnOrder(lambda t: shown.append(t.turn_index))
    for index in range(4):
        order.expect(index)
    order.graded(turn(2))
    order.graded(turn(1))
    assert shown == []
    order.graded(turn(0))
    assert shown == [0, 1, 2]
    order.graded(turn(3))
    assert shown == [0, 1, 2, 3]


def test_flush_shows_what_was_graded_when_a_turn_never_is() -> None:
    shown: list[int] = []
    order = TurnOrder(lambda t: shown.append(t.turn_index))
    for index in range(3):
        order.expect(index)
    order.graded(turn(2))
    order.flush()  # turn 0 and 1 never graded (the case crashed)
    assert shown == [2]


class Recorder:
    def __init__(self) -> None:
        self.events: list[str] = []

    def case_started(self, case: CaseRef) -> None:
        self.events.append(f"{case.name} start")

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self.events.append(f"{case.name} {turn.turn_index}")

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self.events.append(f"{case.name} end")


def ref(position: int, name: str) -> CaseRef:
    return CaseRef(position=position, total=3, index=position - 1, name=name, turns=2)


def result(name: str) -> TestResult:
    return TestResult(test_name=name, test_input="q", passed=True, timestamp="2026-12-03")


def test_a_later_case_waits_until_the_earlier_one_finished() -> None:
    shown = Recorder()
    sink = OneCaseAtATime(shown)
    a, b, c = ref(1, "a"), ref(2, "b"), ref(3, "c")
    sink.case_started(a)
    sink.turn_finished(a, turn(1))
    sink.case_started(b)  # a's judge is still out; b sends meanwhile
    sink.turn_finished(b, turn(0))
    sink.turn_finished(b, turn(1))
    sink.case_finished(b, result("b"))
    sink.case_started(c)
    sink.turn_finished(c, turn(0))
    assert shown.events == ["a start", "a 1"]
    sink.turn_finished(a, turn(0))
    sink.case_finished(a, result("a"))
    # b (finished meanwhile) follows whole, then what c has done so far; c goes on live.
    assert shown.events == [
        "a start", "a 1", "a 0", "a end", "b start", "b 0", "b 1", "b end", "c start", "c 0"
    ]  # fmt: skip
    sink.turn_finished(c, turn(1))
    sink.case_finished(c, result("c"))
    assert shown.events[-2:] == ["c 1", "c end"]
