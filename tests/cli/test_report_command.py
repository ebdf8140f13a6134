"""`holodeck-lsp report REPORT.json --html FILE`: the page from a JSON report, no re-run; an
older JSON report (fields missing, fields unknown) still renders; a file that is not a report
is refused with the cause and the fix."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holodeck_lsp.cli import main
from holodeck_lsp.schema.results import TestResult
from tests.reports.test_html_report import embedded, failing_turn, report_of


def write_report(path: Path) -> dict[str, object]:
    report = report_of(TestResult(test_name="c", test_index=0, turns=[failing_turn(0)]))
    raw: dict[str, object] = json.loads(report.model_dump_json())
    path.write_text(json.dumps(raw), encoding="utf-8")
    return raw


def test_a_json_report_becomes_a_page(tmp_path: Path) -> None:
    write_report(tmp_path / "r.json")
    assert main(["report", str(tmp_path / "r.json"), "--html", str(tmp_path / "out/r.html")]) == 0
    data = embedded((tmp_path / "out/r.html").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    [case] = data["runs"][0]["cases"]
    assert case["name"] == "c" and case["turns"][0]["v"] == "failed"


def test_an_older_report_renders_and_unknown_fields_are_named(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = write_report(tmp_path / "r.json")
    results = raw["results"]
    assert isinstance(results, list)
    for result in results:
        # Fields an older writer did not have, and one it had that this version does not.
        for key in ("test_index", "tool_invocations", "arg_match_details"):
            result.pop(key)
        for turn in result["turns"]:
            for key in ("tool_invocations", "arg_match_details", "skipped", "grader_details"):
                turn.pop(key)
        result["legacy_score"] = 1
    (tmp_path / "old.json").write_text(json.dumps(raw), encoding="utf-8")
    assert main(["report", str(tmp_path / "old.json"), "--html", str(tmp_path / "o.html")]) == 0
    assert (
        "ignored fields this version does not know: results.legacy_score" in capsys.readouterr().err
    )
    data = embedded((tmp_path / "o.html").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    [turn] = data["runs"][0]["cases"][0]["turns"]
    assert [call["n"] for call in turn["calls"]] == ["tools-lookup", "tools-lookup"]  # names only


@pytest.mark.parametrize(
    ("content", "said"),
    [("not json", "is not JSON"), ('{"results": []}', "is not a holodeck-lsp JSON report")],
)
def test_a_file_that_is_not_a_report_exits_2_saying_what_to_pass(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, said: str
) -> None:
    (tmp_path / "x.json").write_text(content, encoding="utf-8")
    assert main(["report", str(tmp_path / "x.json"), "--html", str(tmp_path / "x.html")]) == 2
    err = capsys.readouterr().err
    assert said in err and "holodeck-lsp run --report-json" in err
    assert not (tmp_path / "x.html").exists()


def test_no_such_file_exits_2_and_no_format_prints_the_markdown(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["report", str(tmp_path / "missing.json"), "--html", str(tmp_path / "a")]) == 2
    write_report(tmp_path / "r.json")
    capsys.readouterr()
    # No --html / --md: the Markdown report on stdout, not a usage error.
    assert main(["report", str(tmp_path / "r.json")]) == 0
    assert capsys.readouterr().out.startswith("# Test report: ")


@pytest.mark.slow
def test_the_console_script_lists_and_runs_report(tmp_path: Path) -> None:
    """Through the installed `holodeck-lsp`: `--help` names the command, and it turns a JSON
    report into a page (what a CI job does with a run's artifact)."""
    import subprocess
    import sys

    script = Path(sys.executable).parent / "holodeck-lsp"
    listed = subprocess.run(
        [str(script), "--help"], capture_output=True, text=True, timeout=60, check=False
    )
    assert listed.returncode == 0
    assert "report RUN|FILE" in listed.stdout and "runs [PATH]" in listed.stdout
    write_report(tmp_path / "r.json")
    done = subprocess.run(
        [str(script), "report", str(tmp_path / "r.json"), "--html", str(tmp_path / "r.html")],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "r.html").read_text(encoding="utf-8").startswith("<!DOCTYPE html>")


def test_baseline_marks_what_regressed_on_the_page(tmp_path: Path) -> None:
    """`report HEAD.json --html F --baseline BASE.json`: the page carries the comparison —
    the turn that passed in the base and fails now is a regression."""
    write_report(tmp_path / "head.json")
    base = json.loads((tmp_path / "head.json").read_text(encoding="utf-8"))
    base["results"][0]["passed"] = True
    base["results"][0]["turns"][0]["passed"] = True
    base["summary"].update(passed=1, failed=0, pass_rate=100.0)
    (tmp_path / "base.json").write_text(json.dumps(base), encoding="utf-8")
    page = tmp_path / "page.html"
    argv = ["report", str(tmp_path / "head.json"), "--html", str(page)]
    assert main([*argv, "--baseline", str(tmp_path / "base.json")]) == 0
    data = embedded(page.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and data["baseline"] is not None
    assert data["baseline"]["counts"] == {"regression": 1}
    assert data["baseline"]["label"] == str(tmp_path / "base.json")


def test_a_baseline_that_cannot_be_read_exits_2_and_writes_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    write_report(tmp_path / "head.json")
    page = tmp_path / "page.html"
    argv = ["report", str(tmp_path / "head.json"), "--html", str(page)]
    assert main([*argv, "--baseline", str(tmp_path / "missing.json")]) == 2
    assert "--baseline" in capsys.readouterr().err and not page.exists()
