"""The progress events of a run: what the executor tells its caller as cases start, turns are
graded and cases finish. The CLI draws them on the terminal (commands/console/); the language
server sends them to the client (server/runs/progress.py)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from holodeck_lsp.schema.results import TestResult, TurnResult

#: One session of a case: (index in test_cases, model in a matrix, repeat with --repeat N).
CaseKey = tuple[int, str | None, int | None]


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
    #: Turns that will be graded and reported; of a simulated case, the most it may take.
    turns: int
    #: In a model matrix: the model answering this session (`provider:name`).
    model: str | None = None
    #: With `--repeat N`: which of the N sessions of the case this is (1..N).
    repeat: int | None = None
    #: A simulated user writes its later turns: `turns` is a bound, not a count (progress
    #: shows it as `≤N` until the case has finished).
    simulated: bool = False

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
    def key(self) -> CaseKey:
        """One session of a case (the same case runs once per model and repeat)."""
        return (self.index, self.model, self.repeat)


class ProgressSink(Protocol):
    """Receives events on the event loop; must return quickly and never block."""

    def case_started(self, case: CaseRef) -> None: ...

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None: ...

    def case_finished(self, case: CaseRef, result: TestResult) -> None: ...


class CaseJournal(Protocol):
    """Keeps each finished case session for good (runner/run_history/journal.py)."""

    def record(self, key: CaseKey, result: TestResult) -> None: ...
