"""commands/console/totals_bar.py: a large run shows one aggregate line (on a terminal) or a plain
totals line every few seconds (without one), the failed cases' lines, and a summary that
lists the failed cases only; a small run keeps the per-case display."""

from __future__ import annotations

import io

from holodeck_lsp.commands.console.case_progress import TerminalProgress
from holodeck_lsp.commands.console.totals_bar import (
    AggregateProgress,
    choose_display,
    duration,
    wants_aggregate,
)
from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult
from holodeck_lsp.terminal import PLAIN

CASES = 371
TURNS_PER_CASE = 3
FAILING = {7, 200}  # case indices whose last turn fails


class Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self.tty = tty
        self.encoding_ = "utf-8"

    @property
    def encoding(self) -> str:  # type: ignore[override]
        return self.encoding_

    def isatty(self) -> bool:
        return self.tty


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def turn(index: int, passed: bool) -> TurnResult:
    errors = [] if passed else ["the answer was 3, expected 4"]
    return TurnResult(turn_index=index, input=f"q{index}", passed=passed, errors=errors)


def case_result(index: int) -> TestResult:
    turns = [turn(t, not (index in FAILING and t == TURNS_PER_CASE - 1)) for t in range(3)]
    return TestResult(
        test_name=f"case-{index}",
        test_index=index,
        passed=all(t.passed for t in turns),
        turns=turns,
        timestamp="2026-12-01T00:00:00+00:00",
    )


def fake_run(display: AggregateProgress, clock: Clock, step: float = 0.06) -> TestReport:
    """371 cases of 3 turns, 64 at once, one event every `step` seconds of the fake clock."""
    refs = [
        CaseRef(position=i + 1, total=CASES, index=i, name=f"case-{i}", turns=TURNS_PER_CASE)
        for i in range(CASES)
    ]
    results = [case_result(i) for i in range(CASES)]
    running: list[int] = []
    started = 0
    while started < CASES or running:
        while started < CASES and len(running) < 64:
            display.case_started(refs[started])
            running.append(started)
            started += 1
        index = running.pop(0)
        for result_turn in results[index].turns or []:
            clock.now += step
            display.turn_finished(refs[index], result_turn)
        display.case_finished(refs[index], results[index])
    report = TestReport.model_validate(
        {
            "agent_name": "big",
            "agent_config_path": "agent.yaml",
            "results": [r.model_dump() for r in results],
            "summary": {
                "total_tests": CASES,
                "passed": CASES - len(FAILING),
                "failed": len(FAILING),
                "pass_rate": 1.0,
                "total_duration_ms": 0,
            },
            "timestamp": "2026-12-01T00:00:00+00:00",
            "holodeck_version": "test",
        }
    )
    display.finish(report)
    return report


def aggregate(tty: bool, clock: Clock) -> tuple[Stream, AggregateProgress]:
    stream = Stream(tty)
    display = AggregateProgress(
        stream, palette=PLAIN, cases=CASES, turns=CASES * TURNS_PER_CASE, clock=clock, width=200
    )
    return stream, display


def test_on_a_terminal_a_large_run_is_one_redrawn_line_and_the_failures() -> None:
    clock = Clock()
    stream, display = aggregate(True, clock)
    fake_run(display, clock)
    text = stream.getvalue()
    lines = text.split("\n")
    # Everything that stays on screen: the two failed cases, the last totals, the summary.
    kept = [line.rsplit("\r\x1b[K", 1)[-1] for line in lines]
    failed = [line for line in kept if " FAILED (" in line]
    assert failed == ["[8/371] case-7 FAILED (2/3 turns passed)",
                      "[201/371] case-200 FAILED (2/3 turns passed)"]  # fmt: skip
    assert len(lines) < 20  # not 371 case lines, nor 1,113 turn lines
    final = kept[2]
    assert final.startswith("[████████████████████] 371/371 cases (2 failed) · 1113/1113 turns")
    assert "1111 ✓ 2 ✗" in final and "0 running" in final and "ETA 0s" in final
    # 1,113 turns at 0.06 s each: 66.8 s at 16.7 turns/s, 1,000 a minute
    assert "1m07s" in final and "1000 turns/min" in final
    # The bar is redrawn in place, at most every 0.1 s (every other turn here), not per event.
    redraws = text.count("\r\x1b[K")
    assert 1113 // 2 <= redraws < 1113 // 2 + 20
    summary = text.split("Results:\n", 1)[1]
    assert summary.splitlines() == [
        "  FAILED  case-7  [✓ ✓ ✗]",
        "      turn 2: the answer was 3, expected 4",
        "  FAILED  case-200  [✓ ✓ ✗]",
        "      turn 2: the answer was 3, expected 4",
        "  (369 passed cases not listed: --report-md or --report-json has every case and turn)",
    ]


def test_mid_run_the_line_shows_rate_and_time_left() -> None:
    clock = Clock()
    _, display = aggregate(True, clock)
    refs = [CaseRef(i + 1, CASES, i, f"case-{i}", TURNS_PER_CASE) for i in range(64)]
    for ref in refs:
        display.case_started(ref)
    for ref in refs[:10]:
        clock.now += 1.0
        display.turn_finished(ref, turn(0, True))
    line = display.status_line()
    assert line.startswith("[░░░░░░░░░░░░░░░░░░░░] 0/371 cases · 10/1113 turns · 10 ✓ 0 ✗")
    # 10 turns in 10 s: 60 turns/min, 1,103 turns left
    assert "64 running · 10s · 60 turns/min · ETA 18m23s" in line


def test_the_terminal_line_is_cut_to_the_width() -> None:
    clock = Clock()
    stream = Stream(True)
    display = AggregateProgress(stream, cases=5, turns=10, clock=clock, width=40)
    display.case_started(CaseRef(1, 5, 0, "a", 2))
    drawn = stream.getvalue().rsplit("\r\x1b[K", 1)[-1]
    assert len(drawn) == 39 and drawn.endswith("…")


def test_without_a_terminal_a_plain_totals_line_every_interval() -> None:
    clock = Clock()
    stream, display = aggregate(False, clock)
    fake_run(display, clock)
    text = stream.getvalue()
    assert "\r" not in text and "\x1b" not in text
    lines = text.splitlines()
    totals = [line for line in lines if line.startswith("[") and " cases" in line]
    # 66.8 s of events, a line every 10 s (the first at once), and the last at the end
    assert len(totals) == 8
    assert totals[0].startswith("[░░░░░░░░░░░░░░░░░░░░] 0/371 cases · 0/1113 turns")
    assert totals[-1].startswith("[████████████████████] 371/371 cases (2 failed)")
    assert [line for line in lines if " FAILED (" in line] == [
        "[8/371] case-7 FAILED (2/3 turns passed)",
        "[201/371] case-200 FAILED (2/3 turns passed)",
    ]
    assert len(lines) < 20


def test_an_ascii_stream_gets_ascii_marks_and_bar() -> None:
    clock = Clock()
    stream = Stream(False)
    stream.encoding_ = "ascii"
    display = AggregateProgress(stream, cases=2, turns=2, clock=clock)
    display.case_started(CaseRef(1, 2, 0, "a", 1))
    assert stream.getvalue() == (
        "[--------------------] 0/2 cases | 0/2 turns | 0 ok 0 FAIL | 1 running | 0s | "
        "0.0 turns/min | ETA ?\n"
    )


def test_which_runs_get_the_aggregate_display() -> None:
    # A terminal: past 50 cases, or more cases at once than the terminal has rows for.
    assert not wants_aggregate(tty=True, cases=10, turns=34, parallel=4, rows=40)
    assert wants_aggregate(tty=True, cases=51, turns=100, parallel=1, rows=40)
    assert wants_aggregate(tty=True, cases=40, turns=80, parallel=64, rows=24)
    assert not wants_aggregate(tty=True, cases=40, turns=80, parallel=64, rows=60)
    # No terminal: the per-turn lines up to 200 turns, the totals line past them.
    assert not wants_aggregate(tty=False, cases=100, turns=200, parallel=64)
    assert wants_aggregate(tty=False, cases=60, turns=201, parallel=1)


def test_choose_display_keeps_the_per_case_display_for_a_small_run() -> None:
    small = choose_display(Stream(False), PLAIN, cases=10, turns=34, parallel=4)
    assert type(small) is TerminalProgress
    large = choose_display(Stream(False), PLAIN, cases=371, turns=1297, parallel=64)
    assert isinstance(large, AggregateProgress) and large.live is False


def test_durations_read_short() -> None:
    assert [duration(s) for s in (0, 42.4, 185, 3725)] == ["0s", "42s", "3m05s", "1h02m"]


def test_progress_mode_overrides_the_size_rule() -> None:
    forced = choose_display(Stream(True), PLAIN, cases=3, turns=6, parallel=1, mode="totals")
    assert isinstance(forced, AggregateProgress) and forced.live is True
    per_case = choose_display(
        Stream(False), PLAIN, cases=371, turns=1297, parallel=64, mode="cases"
    )
    assert type(per_case) is TerminalProgress
