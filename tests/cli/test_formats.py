"""The four `--check` output formats, from hand-made diagnostics (no loader involved)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp import __version__
from holodeck_lsp.checker.diagnostics import Diagnostic, Range, Severity
from holodeck_lsp.checker.located import NOWHERE, Step, Where
from holodeck_lsp.reports.check import (
    FORMATS,
    Format,
    Report,
    Summary,
    build_report,
    github,
    json_report,
    render,
    sarif,
    text,
)
from holodeck_lsp.schema.codes import TITLES, Code


def diag(
    file: str,
    start: tuple[int, int],
    end: tuple[int, int],
    severity: Severity = Severity.ERROR,
    code: Code = Code.WRONG_TYPE,
    message: str = "value is not a string",
    *,
    field_path: str | None = None,
    test_case: str | None = None,
    where: Where = NOWHERE,
) -> Diagnostic:
    return Diagnostic(
        file=file,
        range=Range.of(*start, *end),
        severity=severity,
        code=code,
        message=message,
        field_path=field_path,
        test_case=test_case,
        where=where,
    )


#: Where the included file's fault lies: a case without a name, its `ground_truth`.
CASE_1 = Where((Step("case", "#1"),), "ground_truth")
CASE_1_PATH = "test_cases[1].ground_truth"


@pytest.fixture
def report(tmp_path: Path) -> Report:
    """a.agent.yaml (clean), b/agent.yaml (error, warning, hint; includes cases.yaml: error)."""
    agent = "b/agent.yaml"
    cases = str(tmp_path / "b" / "cases.yaml")  # the loader may name includes absolutely
    return build_report(
        [
            (
                agent,
                [
                    diag(agent, (7, 4), (7, 9), Severity.WARNING, Code.UNDECLARED_TOOL, "no tool"),
                    diag(cases, (2, 18), (2, 23), field_path=CASE_1_PATH, where=CASE_1),
                    diag(agent, (1, 0), (1, 5), Severity.HINT, Code.MISSPELT_MATCHER, "typo?"),
                    diag(agent, (0, 0), (0, 4), Severity.ERROR, Code.MISSING_FIELD, "name"),
                ],
            ),
            ("a.agent.yaml", []),
        ],
        cwd=tmp_path,
    )


# --- the report model ------------------------------------------------------------------------


def test_report_groups_includes_under_their_own_file_and_sorts(report: Report) -> None:
    assert [file.path for file in report.files] == [
        "a.agent.yaml",
        "b/agent.yaml",
        "b/cases.yaml",  # absolute from the loader, shown relative to the current directory
    ]
    agent = report.files[1]
    assert [d.range.start.line for d in agent.diagnostics] == [0, 1, 7]
    assert [d.code for d in report.files[2].diagnostics] == [Code.WRONG_TYPE]


def test_report_counts(report: Report) -> None:
    summary = report.summary
    assert (summary.files, summary.errors, summary.warnings) == (3, 2, 1)
    assert (summary.information, summary.hints) == (0, 1)


def test_report_merges_two_namings_of_one_file(tmp_path: Path) -> None:
    absolute = str(tmp_path / "x" / "agent.yaml")
    merged = build_report(
        [("x/./agent.yaml", [diag(absolute, (0, 0), (0, 1)), diag("", (1, 0), (1, 1))])],
        cwd=tmp_path,
    )
    assert len(merged.files) == 1
    assert merged.files[0].path == "x/agent.yaml"
    assert len(merged.files[0].diagnostics) == 2


def test_empty_report() -> None:
    empty = build_report([])
    assert empty.files == ()
    assert text.render(empty) == "0 errors, 0 warnings in 0 files\n"


# --- text ------------------------------------------------------------------------------------


def test_text_lines_are_one_based_and_sorted(report: Report) -> None:
    assert text.render(report).splitlines() == [
        "b/agent.yaml:1:1: error: name [HD101]",
        "b/agent.yaml:2:1: hint: typo? [HD125]",
        "b/agent.yaml:8:5: warning: no tool [HD201]",
        "b/cases.yaml:3:19: error: value is not a string (in test case #1, `ground_truth`) [HD102]",
        "2 errors, 1 warning, 1 note in 3 files",
    ]


def test_text_folds_multi_line_messages() -> None:
    line = text.format_diagnostic("a.yaml", diag("a.yaml", (0, 0), (0, 1), message="one\ntwo\r\n"))
    assert line == "a.yaml:1:1: error: one two [HD102]"


@pytest.mark.parametrize(
    ("errors", "warnings", "notes", "files", "expected"),
    [
        (0, 0, 0, 1, "0 errors, 0 warnings in 1 file"),
        (1, 1, 0, 2, "1 error, 1 warning in 2 files"),
        (2, 3, 1, 1, "2 errors, 3 warnings, 1 note in 1 file"),
    ],
)
def test_text_summary_line(
    errors: int, warnings: int, notes: int, files: int, expected: str
) -> None:
    summary = Summary(files, errors, warnings, notes, 0)
    assert text.summary_line(summary) == expected


# --- json ------------------------------------------------------------------------------------


def _expect_keys(value: Any, keys: set[str]) -> dict[str, Any]:
    assert isinstance(value, dict)
    assert set(value) == keys
    return value


def _assert_position(value: Any) -> None:
    position = _expect_keys(value, {"line", "character"})
    assert all(type(number) is int and number >= 0 for number in position.values())


def assert_json_report_shape(document: Any) -> None:
    """The v1 JSON format as docs/cli.md specifies it, checked by hand (no jsonschema offline)."""
    top = _expect_keys(document, {"version", "files", "summary"})
    assert top["version"] == 1
    summary = _expect_keys(top["summary"], {"files", "errors", "warnings"})
    assert all(type(count) is int for count in summary.values())
    assert isinstance(top["files"], list)
    assert summary["files"] == len(top["files"])
    for file in top["files"]:
        _expect_keys(file, {"path", "diagnostics"})
        assert isinstance(file["path"], str) and file["path"]
        for entry in file["diagnostics"]:
            keys = {"severity", "code", "message", "cause", "where", "range", "field_path"}
            item = _expect_keys(entry, keys | {"test_case", "source"})
            assert item["severity"] in {"error", "warning", "information", "hint"}
            assert item["code"] in {code.value for code in Code}
            assert isinstance(item["message"], str)
            # The one-line message leads with the cause; `where` is the full location or null.
            assert isinstance(item["cause"], str) and item["message"].startswith(item["cause"])
            assert item["where"] is None or isinstance(item["where"], str)
            assert item["source"] == "holodeck"
            assert item["field_path"] is None or isinstance(item["field_path"], str)
            assert item["test_case"] is None or isinstance(item["test_case"], str)
            span = _expect_keys(item["range"], {"start", "end"})
            _assert_position(span["start"])
            _assert_position(span["end"])


def test_json_shape_and_zero_based_positions(report: Report) -> None:
    document = json.loads(json_report.render(report))
    assert_json_report_shape(document)
    assert document["summary"] == {"files": 3, "errors": 2, "warnings": 1}
    clean, agent, cases = document["files"]
    assert clean == {"path": "a.agent.yaml", "diagnostics": []}  # clean files are listed
    assert agent["path"] == "b/agent.yaml"
    assert [d["severity"] for d in agent["diagnostics"]] == ["error", "hint", "warning"]
    assert cases["diagnostics"] == [
        {
            "severity": "error",
            "code": "HD102",
            "message": "value is not a string (case #1, ground_truth)",
            "cause": "value is not a string",
            "where": "test case #1, `ground_truth`",
            "range": {"start": {"line": 2, "character": 18}, "end": {"line": 2, "character": 23}},
            "field_path": "test_cases[1].ground_truth",
            "test_case": None,
            "source": "holodeck",
        }
    ]


def test_json_keeps_non_ascii_readable() -> None:
    one = build_report([("a.yaml", [diag("a.yaml", (0, 0), (0, 1), message="«ünïcode»")])])
    assert "«ünïcode»" in json_report.render(one)


# --- sarif -----------------------------------------------------------------------------------


def _nonempty_text(value: Any) -> str:
    entry = _expect_keys(value, {"text"})
    assert isinstance(entry["text"], str) and entry["text"]
    return str(entry["text"])


def assert_sarif_shape(log: Any) -> None:
    """The SARIF 2.1.0 properties GitHub code scanning requires (its "required" table)."""
    assert log["$schema"].startswith("https://") and "sarif" in log["$schema"]
    assert log["version"] == "2.1.0"
    assert isinstance(log["runs"], list) and len(log["runs"]) == 1
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "holodeck-lsp"
    assert driver["version"] == __version__
    assert driver["informationUri"].startswith("https://")
    rule_ids = [rule["id"] for rule in driver["rules"]]
    assert rule_ids == sorted(set(rule_ids))
    for rule in driver["rules"]:
        assert rule["name"] and len(rule["name"]) <= 255
        assert _nonempty_text(rule["shortDescription"]) == TITLES[Code(rule["id"])]
        _nonempty_text(rule["fullDescription"])
        _nonempty_text(rule["help"])
    for base in run["originalUriBaseIds"].values():
        assert base["uri"].startswith("file://") and base["uri"].endswith("/")
    assert run["invocations"][0]["executionSuccessful"] is True
    assert isinstance(run["results"], list)
    for result in run["results"]:
        assert driver["rules"][result["ruleIndex"]]["id"] == result["ruleId"]
        assert result["level"] in {"error", "warning", "note"}
        assert isinstance(result["message"]["text"], str) and result["message"]["text"]
        assert 1 <= len(result["locations"]) <= 10
        physical = result["locations"][0]["physicalLocation"]
        uri = physical["artifactLocation"]["uri"]
        assert uri and "\\" not in uri
        if "uriBaseId" in physical["artifactLocation"]:
            assert physical["artifactLocation"]["uriBaseId"] in run["originalUriBaseIds"]
            assert not uri.startswith("/")
        region = _expect_keys(
            physical["region"], {"startLine", "startColumn", "endLine", "endColumn"}
        )
        assert all(type(number) is int and number >= 1 for number in region.values())
        assert (region["endLine"], region["endColumn"]) >= (
            region["startLine"],
            region["startColumn"],
        )


def test_sarif_structure(report: Report, tmp_path: Path) -> None:
    log = json.loads(sarif.render(report, cwd=tmp_path))
    assert_sarif_shape(log)
    run = log["runs"][0]
    assert [rule["id"] for rule in run["tool"]["driver"]["rules"]] == [
        "HD101",
        "HD102",
        "HD125",
        "HD201",
    ]
    assert run["originalUriBaseIds"]["%SRCROOT%"]["uri"] == tmp_path.resolve().as_uri() + "/"
    levels = [(r["ruleId"], r["level"]) for r in run["results"]]
    assert levels == [
        ("HD101", "error"),
        ("HD125", "note"),
        ("HD201", "warning"),
        ("HD102", "error"),
    ]


def test_sarif_locations_are_relative_and_one_based(report: Report, tmp_path: Path) -> None:
    results = json.loads(sarif.render(report, cwd=tmp_path))["runs"][0]["results"]
    last = results[-1]["locations"][0]["physicalLocation"]
    assert last["artifactLocation"] == {"uri": "b/cases.yaml", "uriBaseId": "%SRCROOT%"}
    # LSP (2,18)-(2,23), end exclusive -> SARIF 1-based, end column still exclusive.
    assert last["region"] == {"startLine": 3, "startColumn": 19, "endLine": 3, "endColumn": 24}
    # The message leads with the cause, the location is its short suffix (as in the editor).
    assert results[-1]["message"] == {"text": "value is not a string (case #1, ground_truth)"}


def test_sarif_encodes_uris_and_keeps_outside_files_absolute(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    outside = tmp_path / "elsewhere" / "agent.yaml"
    spaced = "my agents/agent.yaml"
    one = build_report(
        [
            (spaced, [diag(spaced, (0, 0), (0, 1))]),
            (str(outside), [diag(str(outside), (0, 0), (0, 1))]),
        ],
        cwd=root,
    )
    log = json.loads(sarif.render(one, cwd=root))
    assert_sarif_shape(log)
    locations = [
        r["locations"][0]["physicalLocation"]["artifactLocation"] for r in log["runs"][0]["results"]
    ]
    assert {"uri": "my%20agents/agent.yaml", "uriBaseId": "%SRCROOT%"} in locations
    assert {"uri": outside.resolve().as_uri()} in locations


def test_sarif_without_results_is_still_valid(tmp_path: Path) -> None:
    log = json.loads(sarif.render(build_report([("a.yaml", [])], cwd=tmp_path), cwd=tmp_path))
    assert_sarif_shape(log)
    assert log["runs"][0]["results"] == []
    assert log["runs"][0]["tool"]["driver"]["rules"] == []


# --- github ----------------------------------------------------------------------------------


def test_github_commands(report: Report, tmp_path: Path) -> None:
    assert github.render(report, cwd=tmp_path).splitlines() == [
        "::error file=b/agent.yaml,line=1,col=1,endLine=1,endColumn=4,title=HD101::name",
        "::notice file=b/agent.yaml,line=2,col=1,endLine=2,endColumn=5,title=HD125::typo?",
        "::warning file=b/agent.yaml,line=8,col=5,endLine=8,endColumn=9,title=HD201::no tool",
        "::error file=b/cases.yaml,line=3,col=19,endLine=3,endColumn=23,title=HD102::"
        "value is not a string (case #1, ground_truth)",
    ]


def test_github_escapes_message_and_properties() -> None:
    d = diag("a:b,c.yaml", (0, 0), (0, 0), Severity.INFORMATION, message="50% done\r\nnext: a,b")
    assert github.format_command("a:b,c%.yaml", d) == (
        "::notice file=a%3Ab%2Cc%25.yaml,line=1,col=1,endLine=1,endColumn=1,title=HD102::"
        "50%25 done%0D%0Anext: a,b"
    )
    assert github.escape_property("x\ny\r:,%") == "x%0Ay%0D%3A%2C%25"
    assert github.escape_data("x\ny\r:,%") == "x%0Ay%0D:,%25"


def test_github_multi_line_ranges_report_lines_only() -> None:
    spanning = diag("a.yaml", (2, 4), (5, 1))
    assert ",line=3,endLine=6,title=" in github.format_command("a.yaml", spanning)
    # Ending at the start of the next line: the last character is on the first line.
    to_line_start = diag("a.yaml", (2, 4), (3, 0))
    assert ",line=3,col=5,endLine=3,title=" in github.format_command("a.yaml", to_line_start)


def test_github_without_diagnostics_prints_nothing(tmp_path: Path) -> None:
    assert github.render(build_report([("a.yaml", [])], cwd=tmp_path), cwd=tmp_path) == ""


# --- dispatch --------------------------------------------------------------------------------


@pytest.mark.parametrize("fmt", FORMATS)
def test_render_dispatches_every_format(report: Report, tmp_path: Path, fmt: Format) -> None:
    direct = {
        "text": lambda: text.render(report),
        "json": lambda: json_report.render(report),
        "sarif": lambda: sarif.render(report, cwd=tmp_path),
        "github": lambda: github.render(report, cwd=tmp_path),
    }
    assert render(report, fmt, cwd=tmp_path) == direct[fmt]()
