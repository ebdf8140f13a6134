"""The diagnostic record every checker produces: positioned, coded, named by field path."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum

from holodeck_lsp.checker.located import NOWHERE, Where
from holodeck_lsp.schema.codes import Code


class Severity(IntEnum):
    """Severities with the LSP's numbering, so the server can pass them through."""

    ERROR = 1
    WARNING = 2
    INFORMATION = 3
    HINT = 4

    @property
    def label(self) -> str:
        return self.name.lower()


@dataclass(frozen=True, slots=True, order=True)
class Position:
    """0-based line and character (Unicode code points within the line)."""

    line: int
    character: int


@dataclass(frozen=True, slots=True, order=True)
class Range:
    start: Position
    end: Position

    @classmethod
    def of(cls, start_line: int, start_char: int, end_line: int, end_char: int) -> Range:
        return cls(Position(start_line, start_char), Position(end_line, end_char))


SOURCE = "holodeck"


@dataclass(frozen=True, slots=True)
class Diagnostic:
    """One fault of one file.

    `message` is the cause and the fix, never the location: `where` says which test case,
    turn, expected tool and argument (composed with the message by `located_message` and
    `check_message`, the same way for every code — see checker/located.py). `file` is the
    path of the document the range refers to (a `test_cases_file` include has its own);
    `field_path` is the dotted/indexed path into the agent (e.g.
    `test_cases[0].turns[2].expected_tools[1].args.a.regex`); `test_case` is the case's name or
    `#index` when the fault lies inside a test case.
    """

    file: str
    range: Range
    severity: Severity
    code: Code
    message: str
    field_path: str | None = None
    test_case: str | None = None
    source: str = SOURCE
    #: Machine-readable extras for quick fixes (e.g. {"suggestion": "ground_truth"}).
    data: dict[str, str] = field(default_factory=dict, compare=False, hash=False)
    where: Where = NOWHERE

    @property
    def is_error(self) -> bool:
        return self.severity is Severity.ERROR

    @property
    def location(self) -> str:
        """The full location (`test case 'c1', turn 2, expected tool 'add', arg 'a', `regex``),
        or "" when the fault is not tied to a field."""
        return self.where.full()

    @property
    def located_message(self) -> str:
        """One line, cause first: `regex does not compile: … (case 'c1', turn 2, tool add,
        arg a, regex)` — what the editor, JSON, SARIF and GitHub annotations show."""
        return f"{self.message} ({self.where.short()})" if self.where else self.message

    @property
    def check_message(self) -> str:
        """`check`'s text output: the cause first, then the full location."""
        return f"{self.message} (in {self.where.full()})" if self.where else self.message
