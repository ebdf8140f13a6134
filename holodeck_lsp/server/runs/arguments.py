"""The run commands and their arguments: one small dataclass per command, parsed from the
`workspace/executeCommand` argument list with a message naming the command and the bad
argument (the lenses send them; other clients may not).

    holodeck.runAll       [uri]
    holodeck.runCase      [uri, caseIndex]
    holodeck.runTurn      [uri, caseIndex, turn]
    holodeck.regradeCase  [uri, caseIndex]
    holodeck.cancelRun    [uri?]      (no uri, or not a string: nothing to cancel)
    holodeck.lastRunReport [uri?, {"format": "markdown" | "html"}?]
    holodeck.compareWithBaseline [uri?, {"format": "markdown" | "html"}?]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar, Final, Self

RUN_ALL: Final = "holodeck.runAll"
RUN_CASE: Final = "holodeck.runCase"
RUN_TURN: Final = "holodeck.runTurn"
REGRADE_CASE: Final = "holodeck.regradeCase"
CANCEL_RUN: Final = "holodeck.cancelRun"
LAST_REPORT: Final = "holodeck.lastRunReport"
WHY_NO_RUN: Final = "holodeck.whyNoRun"
COMPARE_WITH_BASELINE: Final = "holodeck.compareWithBaseline"


class BadArguments(ValueError):
    """The message names the command and the argument, e.g. `holodeck.runCase: caseIndex
    (argument 2) must be an integer, got 'x'`."""


def _uri(command: str, arguments: Sequence[Any]) -> str:
    if not arguments:
        raise BadArguments(f"{command}: the document uri (argument 1) is missing")
    if not isinstance(arguments[0], str):
        raise BadArguments(f"{command}: uri (argument 1) must be a string, got {arguments[0]!r}")
    return arguments[0]


def _index(command: str, arguments: Sequence[Any], position: int, name: str) -> int:
    if len(arguments) <= position:
        raise BadArguments(f"{command}: {name} (argument {position + 1}) is missing")
    value = arguments[position]
    if not isinstance(value, int) or isinstance(value, bool):
        raise BadArguments(
            f"{command}: {name} (argument {position + 1}) must be an integer, got {value!r}"
        )
    return value


def _optional_uri(arguments: Sequence[Any]) -> str | None:
    return arguments[0] if arguments and isinstance(arguments[0], str) else None


@dataclass(frozen=True, slots=True)
class RunAll:
    command: ClassVar[str] = RUN_ALL
    uri: str

    @property
    def case_index(self) -> int | None:
        return None

    @property
    def turn(self) -> int | None:
        return None

    @classmethod
    def parse(cls, arguments: Sequence[Any]) -> RunAll:
        return cls(_uri(cls.command, arguments))


@dataclass(frozen=True, slots=True)
class RunCase:
    command: ClassVar[str] = RUN_CASE
    uri: str
    case_index: int

    @property
    def turn(self) -> int | None:
        return None

    @classmethod
    def parse(cls, arguments: Sequence[Any]) -> Self:
        return cls(_uri(cls.command, arguments), _index(cls.command, arguments, 1, "caseIndex"))


@dataclass(frozen=True, slots=True)
class RunTurn:
    command: ClassVar[str] = RUN_TURN
    uri: str
    case_index: int
    turn: int

    @classmethod
    def parse(cls, arguments: Sequence[Any]) -> RunTurn:
        return cls(
            _uri(cls.command, arguments),
            _index(cls.command, arguments, 1, "caseIndex"),
            _index(cls.command, arguments, 2, "turn"),
        )


@dataclass(frozen=True, slots=True)
class RegradeCase(RunCase):
    """`holodeck.regradeCase uri caseIndex`: the arguments of runCase, another command."""

    command: ClassVar[str] = REGRADE_CASE


@dataclass(frozen=True, slots=True)
class CancelRun:
    command: ClassVar[str] = CANCEL_RUN
    uri: str | None

    @classmethod
    def parse(cls, arguments: Sequence[Any]) -> CancelRun:
        return cls(_optional_uri(arguments))


#: The forms `holodeck.lastRunReport` answers in (Markdown unless asked otherwise).
REPORT_FORMATS: Final = ("markdown", "html")


@dataclass(frozen=True, slots=True)
class LastRunReport:
    command: ClassVar[str] = LAST_REPORT
    uri: str | None
    format: str = "markdown"

    @classmethod
    def parse(cls, arguments: Sequence[Any]) -> LastRunReport:
        return cls(_optional_uri(arguments), _report_format(LAST_REPORT, arguments))


@dataclass(frozen=True, slots=True)
class CompareWithBaseline:
    """The document's results (or latest stored run) against its baseline run."""

    command: ClassVar[str] = COMPARE_WITH_BASELINE
    uri: str | None
    format: str = "markdown"

    @classmethod
    def parse(cls, arguments: Sequence[Any]) -> CompareWithBaseline:
        return cls(_optional_uri(arguments), _report_format(COMPARE_WITH_BASELINE, arguments))


def _report_format(command: str, arguments: Sequence[Any]) -> str:
    """The `{"format": "markdown" | "html"}` options of a command answering with a report
    (argument 2; absent: Markdown)."""
    options = arguments[1] if len(arguments) > 1 else None
    if options is None:
        return "markdown"
    wanted = options.get("format") if isinstance(options, dict) else None
    if wanted not in REPORT_FORMATS:
        raise BadArguments(
            f'{command}: options (argument 2) must be {{"format": "markdown"}} or '
            f'{{"format": "html"}}, got {options!r}'
        )
    return str(wanted)


@dataclass(frozen=True, slots=True)
class WhyNoRun:
    """The command of the lens shown instead of the run lenses when a run would be refused."""

    command: ClassVar[str] = WHY_NO_RUN
    uri: str | None

    @classmethod
    def parse(cls, arguments: Sequence[Any]) -> WhyNoRun:
        return cls(_optional_uri(arguments))


#: A command that runs (or re-grades) cases of a document.
RunArguments = RunAll | RunCase | RunTurn | RegradeCase
