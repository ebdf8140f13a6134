"""Progress of a run: the callbacks the executor makes, and the terminal displays.

On a terminal the display keeps one line per running case (turns done, passes, failures),
redrawn in place with ANSI escapes, and prints a line for each case as it finishes. When the
output is a pipe or a file (CI logs) it prints one plain line per turn instead, e.g.
`[3/10] case-name turn 1 ✓ (2/4)`. Turns are numbered from 0, as in the reports.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from typing import Protocol

from holodeck_lsp.engine.reports.view import Block, failure_reasons, skip_reason
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult
from holodeck_lsp.terminal import PLAIN, Palette


class TextStream(Protocol):
    """Where the display writes (sys.stdout, or a wrapper that masks secrets)."""

    def write(self, text: str, /) -> int: ...

    def flush(self) -> None: ...

    def isatty(self) -> bool: ...


@dataclass(frozen=True, slots=True)
class CaseRef:
    """A case as the progress display sees it."""

    #: 1-based position among the cases of this run (for `[3/10]`).
    position: int
    #: Number of cases in this run.
    total: int
    #: Position in `test_cases` (0-based, as in reports).
    index: int
    name: str | None
    #: Turns that will be graded and reported.
    turns: int
    #: In a model matrix: the model answering this session (`provider:name`).
    model: str | None = None
    #: With `--repeat N`: which of the N sessions of the case this is (1..N).
    repeat: int | None = None

    @property
    def label(self) -> str:
        return self.name or f"test_cases[{self.index}]"

    @property
    def work_label(self) -> str:
        """The label, with the model and repeat when the run has several of them: what the
        console names one session by (`revenue [openai:gpt-4o] #2`)."""
        label = self.label
        if self.model is not None:
            label += f" [{self.model}]"
        if self.repeat is not None:
            label += f" #{self.repeat}"
        return label

    @property
    def key(self) -> tuple[int, str | None, int | None]:
        """One session of a case (the same case runs once per model and repeat)."""
        return (self.index, self.model, self.repeat)


class ProgressSink(Protocol):
    """Receives events on the event loop; must return quickly and never block."""

    def case_started(self, case: CaseRef) -> None: ...

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None: ...

    def case_finished(self, case: CaseRef, result: TestResult) -> None: ...


@dataclass(slots=True)
class _Running:
    case: CaseRef
    done: int = 0
    passed: int = 0
    failed: int = 0


class _Marks:
    def __init__(self, stream: object) -> None:
        encoding = getattr(stream, "encoding", None) or "ascii"
        try:
            "✓✗–".encode(encoding)
            self.passed, self.failed, self.skipped = "✓", "✗", "–"
        except (UnicodeEncodeError, LookupError):
            self.passed, self.failed, self.skipped = "ok", "FAIL", "skip"

    def of(self, turn: TurnResult) -> str:
        if turn.skipped:
            return self.skipped
        return self.passed if turn.passed else self.failed


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
        self._marks = _Marks(self.stream)

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
            f"{_prefix(case)} turn {turn.turn_index} {self._marks.of(turn)} "
            f"({state.done}/{case.turns})\n"
        )

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self._running.pop(case.key, None)
        verdict = self.palette.verdict(result.passed, "PASSED" if result.passed else "FAILED")
        turns = result.turns
        passed = sum(t.passed for t in turns) if turns is not None else int(result.passed)
        count = len(turns) if turns is not None else 1
        line = f"{_prefix(case)} {verdict} ({passed}/{count} turns passed)"
        if self.live:
            self._redraw([line])
        else:
            self._write(line + "\n")

    def finish(self, report: TestReport) -> None:
        """Clear the live lines and print the per-turn summary."""
        if self.live:
            self._redraw([])
        lines = summary_lines(report, self._marks, self.palette, verbose=self.verbose)
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
            f"{_prefix(case)} running: {state.done}/{case.turns} turns, "
            f"{state.passed} {self._marks.passed}, {state.failed} {self._marks.failed}"
        )

    def _write(self, text: str) -> None:
        self.stream.write(text)
        self.stream.flush()


def _prefix(case: CaseRef) -> str:
    return f"[{case.position}/{case.total}] {case.work_label}"


def summary_lines(
    report: TestReport,
    marks: _Marks | None = None,
    palette: Palette = PLAIN,
    *,
    verbose: bool = False,
) -> list[str]:
    """Per case: its verdict and its turns' marks; per failing turn: its first reason. (The
    command prints the totals line after it.) A model matrix or repeats: the table of
    runner/matrix_summary instead."""
    marks = marks or _Marks(sys.stdout)
    from holodeck_lsp.runner.matrix_summary import matrix_lines, wants_matrix

    if wants_matrix(report):
        marked = (marks.passed, marks.failed)
        table = matrix_lines(report, verbose=verbose, palette=palette, marks=marked)
        return table + _matrix_failures(report, palette)
    lines = ["", "Results:"]
    for result in report.results:
        label = result.test_name or f"test_cases[{result.test_index}]"
        turns = result.turns or []
        row = " ".join(marks.of(turn) for turn in turns) if turns else ""
        verdict = palette.verdict(result.passed, "PASSED" if result.passed else "FAILED")
        lines.append(f"  {verdict}  {label}" + (f"  [{row}]" if row else ""))
        if not result.passed:
            lines += _failure_lines(result)
    return lines


#: Failed sessions a matrix summary explains before pointing at the report for the rest.
MATRIX_FAILURES_SHOWN = 20


def _matrix_failures(report: TestReport, palette: Palette) -> list[str]:
    """Below the table, why each failed session failed (case, model, repeat): the table says
    where the ✗ are, this says what went wrong, in the reports' wording."""
    failed = [result for result in report.results if not result.passed]
    if not failed:
        return []
    lines = ["", "Failures:"]
    for result in failed[:MATRIX_FAILURES_SHOWN]:
        label = result.test_name or f"test_cases[{result.test_index}]"
        where = f" [{result.model}]" if result.model and len(report.models) > 1 else ""
        again = f" #{result.repeat}" if result.repeat is not None else ""
        lines.append(f"  {palette.verdict(False, 'FAILED')}  {label}{where}{again}")
        lines += _failure_lines(result)
    hidden = len(failed) - MATRIX_FAILURES_SHOWN
    if hidden > 0:
        lines.append(f"  … and {hidden} more failed sessions (see the report for every one)")
    return lines


def _failure_lines(result: TestResult) -> list[str]:
    # The reports' own wording, so the console names the arg or value that differed too.
    if result.turns is None:
        return [f"      {_first_reason(Block.of_case(result))}"]
    return [
        f"      turn {turn.turn_index}: {_first_reason(Block.of_turn(turn))}"
        for turn in result.turns
        if not turn.passed
    ]


def _first_reason(block: Block) -> str:
    reasons = skip_reason(block) if block.skipped else failure_reasons(block)[0]
    return _one_line(reasons)


def _one_line(text: str, limit: int = 160) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 1] + "…"
