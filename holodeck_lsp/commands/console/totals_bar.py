"""The progress display of a large run: one aggregate line instead of a line per case.

`TerminalProgress` (progress.py) keeps a line per running case and, without a terminal, prints
a line per turn. At the scale of a whole dataset split (hundreds of cases, 64 at once) neither
reads: 64 running lines do not fit a terminal (the redraw cannot move the cursor above the
top of the screen and leaves debris), and 1,300 turn lines bury the failures in a CI log.
So, as pytest and cargo do, a large run shows totals, and only what needs attention:

* on a terminal, one status line redrawn in place (`\\r`, at most 10 times a second, and
  once a second with no event — `redraw`, from runner/execution/heartbeat.py — so a stall
  on a rate limit still moves its clock)::

      [█████████░░░░░░░░░░░] 171/371 cases (3 failed, 1 errored) · 598/1297 turns
          · 590 ✓ 8 ✗ · 64 running · 9 waiting on rate limit · 1m12s · 498 turns/min
          · ETA 1m24s · 1,204,113 tokens · 0.4213 USD       (one line, cut to the width)

  (the waiting count is shown while requests wait for the endpoint's limiter, runner/limits/;
  the cost is the agent's tokens at the price list, "cost n/a" for a model with no price);

  with each failed case printed above it as it finishes (the passed ones only count);
* without one (a pipe, a CI log: no `\\r`, every line is kept), the same totals as a plain line
  every `interval` seconds, and the failed cases' lines. A line per turn would be 1,300 lines
  whose only news is a ✗ now and then; a line every 10 s says the run is alive and how far
  it got, and a log viewer still finds every failure by its case name.

The summary at the end lists the failed cases with their first reason, not every case: the
reports (`--report-md`, `--report-json`) have every case and turn.
"""

from __future__ import annotations

import shutil
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from holodeck_lsp.commands.console.case_progress import TerminalProgress, case_prefix
from holodeck_lsp.commands.console.results_list import results_lines
from holodeck_lsp.commands.console.text_stream import TextStream
from holodeck_lsp.reports.run.view import usd
from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.runner.limits import registry
from holodeck_lsp.runner.turn_total import TurnTotal
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult
from holodeck_lsp.terminal import Palette

#: More cases than this make a run "large" (the aggregate display).
LARGE_RUN_CASES = 50
#: Without a terminal, more turns than this make a run large (one line per turn above it).
LARGE_RUN_TURNS = 200
#: Lines a terminal keeps free besides the running cases' lines (finished lines, the prompt).
_SPARE_ROWS = 4
#: Seconds between redraws of the terminal line (the eye reads no faster).
_REDRAW_EVERY = 0.1
_BAR_WIDTH = 20


def wants_aggregate(
    *, tty: bool, cases: int, turns: int, parallel: int, rows: int | None = None
) -> bool:
    """Whether a run of this size gets the aggregate display (see the module doc)."""
    if not tty:
        return turns > LARGE_RUN_TURNS
    height = rows if rows is not None else shutil.get_terminal_size().lines
    at_once = min(parallel, cases)
    return cases > LARGE_RUN_CASES or at_once > max(1, height - _SPARE_ROWS)


def choose_display(
    stream: TextStream,
    palette: Palette,
    *,
    cases: int,
    turns: int,
    parallel: int,
    mode: str = "auto",
    verbose: bool = False,
    simulated_cases: int = 0,
) -> TerminalProgress:
    """The per-case display for a small run, the aggregate one for a large run (`mode`
    "cases" / "totals" chooses one whatever the size)."""
    tty = stream.isatty()
    large = wants_aggregate(tty=tty, cases=cases, turns=turns, parallel=parallel)
    if mode == "totals" or (mode == "auto" and large):
        return AggregateProgress(
            stream,
            palette=palette,
            cases=cases,
            turns=turns,
            live=tty,
            verbose=verbose,
            simulated_cases=simulated_cases,
        )
    return TerminalProgress(stream, palette=palette, verbose=verbose)


def duration(seconds: float) -> str:
    """`42s`, `3m05s`, `1h02m`: short enough for a status line."""
    whole = int(seconds + 0.5)
    if whole < 60:
        return f"{whole}s"
    minutes, secs = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m{secs:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


@dataclass
class AggregateProgress(TerminalProgress):
    """Totals of a large run (see the module doc). `cases` and `turns` are the run's planned
    totals (a simulated case at its most turns: runner/turn_total.py, `simulated_cases` of
    them); `clock` and `width` are injectable for tests."""

    cases: int = 0
    turns: int = 0
    simulated_cases: int = 0
    #: Seconds between the plain lines when there is no terminal.
    interval: float = 10.0
    clock: Callable[[], float] = time.monotonic
    width: int | None = None
    #: Requests waiting now for an endpoint's limiter (room in its window, a pause a 429
    #: asked for, an rpm bucket): what makes a rate-limited run slow, shown apart.
    waiting: Callable[[], int] = lambda: registry.totals().waiting
    _started: float = field(default=0.0, init=False)
    _last_draw: float | None = field(default=None, init=False)
    _cases_done: int = field(default=0, init=False)
    _cases_failed: int = field(default=0, init=False)
    _turns_done: int = field(default=0, init=False)
    _turns_passed: int = field(default=0, init=False)
    _turns_failed: int = field(default=0, init=False)
    _turns_errored: int = field(default=0, init=False)
    _cases_errored: int = field(default=0, init=False)
    _running_now: int = field(default=0, init=False)
    _tokens: int = field(default=0, init=False)
    _cost: float = field(default=0.0, init=False)
    _unpriced: bool = field(default=False, init=False)
    _bar_shown: bool = field(default=False, init=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        self._started = self.clock()
        self._ascii = self._marks.passed == "ok"
        self._total = TurnTotal(self.turns, self.simulated_cases)

    # -- the sink -----------------------------------------------------------------------------

    def case_started(self, case: CaseRef) -> None:
        self._running_now += 1
        self._tick()

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self._turns_done += 1
        self._total.turn_finished(case)
        if turn.token_usage is not None:
            self._tokens += turn.token_usage.total_tokens
            if turn.cost_usd is None:
                self._unpriced = True
            else:
                self._cost += turn.cost_usd
        if turn.passed:
            self._turns_passed += 1
        elif turn.errored:
            self._turns_errored += 1
        else:
            self._turns_failed += 1
        self._tick()

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self._running_now = max(0, self._running_now - 1)
        self._cases_done += 1
        self._total.case_finished(case)
        if result.passed:
            self._tick()
            return
        if result.errored:
            self._cases_errored += 1
        else:
            self._cases_failed += 1
        turns = result.turns
        passed = sum(t.passed for t in turns) if turns is not None else 0
        count = len(turns) if turns is not None else 1
        verdict = self.palette.case_verdict(False, result.errored, result.simulator_failed)
        self._above(f"{case_prefix(case)} {verdict} ({passed}/{count} turns passed)")

    def finish(self, report: TestReport) -> None:
        """The last totals, then the failed cases with their first reason."""
        if self.live:
            self._clear_bar()
        self._write(self.status_line() + "\n")
        failed = [result for result in report.results if not result.passed]
        shown = report.model_copy(update={"results": failed})
        lines = results_lines(shown, self._marks, self.palette)
        hidden = len(report.results) - len(failed)
        if hidden:
            noun = "case" if hidden == 1 else "cases"
            lines.append(
                f"  ({hidden} passed {noun} not listed: --report-md or --report-json has every "
                "case and turn)"
            )
        self._write("\n".join(lines) + "\n")

    # -- drawing ------------------------------------------------------------------------------

    def status_line(self) -> str:
        """The totals: cases and turns done of planned, ✓ / ✗ turns, running, waiting on a
        rate limit, elapsed, rate, the time left at that rate, tokens and cost so far."""
        elapsed = self.clock() - self._started
        rate = self._turns_done / elapsed if elapsed > 0 else 0.0
        per_minute = rate * 60
        left = self._total.total - self._turns_done
        eta = "0s" if left <= 0 else duration(left / rate) if rate > 0 else "?"
        dot = " | " if self._ascii else " · "
        noted = [f"{self._cases_failed} failed"] if self._cases_failed else []
        noted += [f"{self._cases_errored} errored"] if self._cases_errored else []
        failed_cases = f" ({', '.join(noted)})" if noted else ""
        marks = (
            f"{self._turns_passed} {self._marks.passed} {self._turns_failed} {self._marks.failed}"
        )
        if self._turns_errored:
            marks += f" {self._turns_errored} {self._marks.errored}"
        parts = [
            f"{self._bar()} {self._cases_done}/{self.cases} cases{failed_cases}",
            f"{self._turns_done}/{self._total.text(self._ascii)} turns",
            marks,
            f"{self._running_now} running",
        ]
        waiting = self.waiting()
        if waiting:
            parts.append(f"{waiting} waiting on rate limit")
        parts += [
            duration(elapsed),
            f"{per_minute:.1f} turns/min" if per_minute < 10 else f"{per_minute:.0f} turns/min",
            f"ETA {eta}",
        ]
        if self._tokens:
            parts.append(f"{self._tokens:,} tokens")
            parts.append("cost n/a" if self._unpriced else usd(self._cost))
        return dot.join(parts)

    def _bar(self) -> str:
        planned = self._total.total
        share = self._turns_done / planned if planned else 1.0
        filled = min(_BAR_WIDTH, int(share * _BAR_WIDTH))
        full, empty = ("#", "-") if self._ascii else ("█", "░")
        return "[" + full * filled + empty * (_BAR_WIDTH - filled) + "]"

    def redraw(self) -> None:
        """The live line drawn again now, with no event (the run's heartbeat): elapsed, the
        rate, ETA and "waiting on rate limit" move during a stall."""
        if self.live:
            self._draw_bar(self.clock())

    def _tick(self) -> None:
        now = self.clock()
        if self.live:
            if self._last_draw is None or now - self._last_draw >= _REDRAW_EVERY:
                self._draw_bar(now)
        elif self._last_draw is None or now - self._last_draw >= self.interval:
            # The first event prints at once: a log shows the run began and its size.
            self._last_draw = now
            self._write(self.status_line() + "\n")

    def _draw_bar(self, now: float) -> None:
        self._last_draw = now
        self._bar_shown = True
        self._write("\r\x1b[K" + self._fit(self.status_line()))

    def _clear_bar(self) -> None:
        if self._bar_shown:
            self._write("\r\x1b[K")
            self._bar_shown = False

    def _above(self, line: str) -> None:
        """A line that stays: above the bar on a terminal, on its own line in a log."""
        if self.live:
            self._clear_bar()
            self._write(line + "\n")
            self._draw_bar(self.clock())
        else:
            self._write(line + "\n")

    def _fit(self, line: str) -> str:
        # A line wider than the terminal wraps, and `\r` then redraws only its last part.
        width = self.width if self.width is not None else shutil.get_terminal_size().columns
        return line if len(line) < width else line[: max(1, width - 2)] + "…"
