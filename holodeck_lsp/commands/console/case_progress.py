"""The per-case progress display of `holodeck-lsp run`.

On a terminal it keeps one line per running case (turns done, passes, failures), redrawn in
place with ANSI escapes, and prints a line for each case as it finishes. When the output is a
pipe or a file (CI logs) it prints one plain line per turn instead, e.g.
`[3/10] case-name turn 1 ✓ (2/4)`. Turns are numbered from 0, as in the reports.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field

from holodeck_lsp.commands.console.marks import Marks
from holodeck_lsp.commands.console.results_list import results_lines
from holodeck_lsp.commands.console.text_stream import TextStream
from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.runner.turn_total import case_turns_text
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult
from holodeck_lsp.terminal import PLAIN, Palette, allow_drawing


@dataclass(slots=True)
class _Running:
    case: CaseRef
    done: int = 0
    passed: int = 0
    failed: int = 0


@dataclass
class TerminalProgress:
    """The display `holodeck-lsp run` uses; `live` None decides from `stream.isatty()`."""

    stream: TextStream = field(default_factory=lambda: sys.stdout)
    live: bool | None = None
    #: Colours PASSED / FAILED (see holodeck_lsp.terminal: only on a terminal by default).
    palette: Palette = PLAIN
    #: Whole-run verbosity: the matrix table gets a row per turn.
    verbose: bool = False
    _running: dict[tuple[int, str | None, int | None], _Running] = field(
        default_factory=dict, init=False
    )
    _drawn: int = field(default=0, init=False)

    def __post_init__(self) -> None:
        if self.live is None:
            self.live = self.stream.isatty()
        if self.live:
            allow_drawing()  # the cursor moves of `_redraw` (terminal.printable_output)
        self._marks = Marks(self.stream)

    def case_started(self, case: CaseRef) -> None:
        self._running[case.key] = _Running(case)
        if self.live:
            self._redraw([])

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        state = self._running.setdefault(case.key, _Running(case))
        state.done += 1
        if turn.passed:
            state.passed += 1
        else:
            state.failed += 1
        if self.live:
            self._redraw([])
            return
        self._write(
            f"{case_prefix(case)} turn {turn.turn_index} {self._marks.of(turn)} "
            f"({state.done}/{self._case_turns(case)})\n"
        )

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self._running.pop(case.key, None)
        verdict = self.palette.case_verdict(result.passed, result.errored, result.simulator_failed)
        turns = result.turns
        passed = sum(t.passed for t in turns) if turns is not None else int(result.passed)
        count = len(turns) if turns is not None else 1
        line = f"{case_prefix(case)} {verdict} ({passed}/{count} turns passed)"
        if self.live:
            self._redraw([line])
        else:
            self._write(line + "\n")

    def finish(self, report: TestReport) -> None:
        """Clear the live lines and print the per-turn summary."""
        if self.live:
            self._redraw([])
        lines = results_lines(report, self._marks, self.palette, verbose=self.verbose)
        self._write("\n".join(lines) + "\n")

    def _redraw(self, finished: list[str]) -> None:
        # Move to the first running line, clear to the end of the screen, print the finished
        # lines (they scroll up and stay) and then the running ones again.
        parts = [f"\x1b[{self._drawn}F" if self._drawn else "", "\x1b[J"]
        parts += [line + "\n" for line in finished]
        running = [self._running_line(state) for state in self._running.values()]
        parts += [line + "\n" for line in running]
        self._drawn = len(running)
        self._write("".join(parts))

    def _running_line(self, state: _Running) -> str:
        case = state.case
        return (
            f"{case_prefix(case)} running: {state.done}/{self._case_turns(case)} turns, "
            f"{state.passed} {self._marks.passed}, {state.failed} {self._marks.failed}"
        )

    def _case_turns(self, case: CaseRef) -> str:
        return case_turns_text(case, ascii_only=self._marks.passed == "ok")

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def case_prefix(case: CaseRef) -> str:
    return f"[{case.position}/{case.total}] {case.work_label}"
