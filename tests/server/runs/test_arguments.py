"""The run commands' arguments: parsed into one dataclass per command, or refused with a
message naming the command and the argument."""

from __future__ import annotations

from typing import Any

import pytest

from holodeck_lsp.server.runs.arguments import (
    BadArguments,
    CancelRun,
    LastRunReport,
    RegradeCase,
    RunAll,
    RunCase,
    RunTurn,
)

URI = "file:///w/agent.yaml"


def test_each_command_parses_its_arguments() -> None:
    assert RunAll.parse([URI]) == RunAll(URI)
    assert RunCase.parse([URI, 2]) == RunCase(URI, 2)
    assert RunTurn.parse([URI, 2, 1]) == RunTurn(URI, 2, 1)
    assert RegradeCase.parse([URI, 0]) == RegradeCase(URI, 0)
    assert (RunAll(URI).case_index, RunCase(URI, 2).turn) == (None, None)


@pytest.mark.parametrize(
    ("parse", "arguments", "message"),
    [
        (RunAll.parse, [], "holodeck.runAll: the document uri (argument 1) is missing"),
        (RunAll.parse, [3], "holodeck.runAll: uri (argument 1) must be a string, got 3"),
        (RunCase.parse, [URI], "holodeck.runCase: caseIndex (argument 2) is missing"),
        (
            RunCase.parse,
            [URI, "0"],
            "holodeck.runCase: caseIndex (argument 2) must be an integer, got '0'",
        ),
        (
            RunTurn.parse,
            [URI, 0, True],
            "holodeck.runTurn: turn (argument 3) must be an integer, got True",
        ),
        (RegradeCase.parse, [URI, None], "holodeck.regradeCase: caseIndex (argument 2)"),
    ],
)
def test_bad_arguments_name_the_command_and_the_argument(
    parse: Any, arguments: list[Any], message: str
) -> None:
    with pytest.raises(BadArguments) as bad:
        parse(arguments)
    assert str(bad.value).startswith(message)


def test_cancel_and_report_take_an_optional_uri() -> None:
    assert CancelRun.parse([]) == CancelRun(None)
    assert CancelRun.parse([42]) == CancelRun(None)
    assert LastRunReport.parse([URI]) == LastRunReport(URI)
    assert LastRunReport.parse([URI, {"format": "html"}]) == LastRunReport(URI, "html")
    assert LastRunReport.parse([URI, None]) == LastRunReport(URI, "markdown")
    for options in ({"format": "pdf"}, "html", {}):
        with pytest.raises(BadArguments, match=r"holodeck.lastRunReport: options \(argument 2\)"):
            LastRunReport.parse([URI, options])
