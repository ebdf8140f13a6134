"""Every report of a BFCL run says which view failed a turn: the strict view (its
expected_tools) or the BFCL-equivalent one (the `bfcl_equivalent` metric), or both.

The sample's cassette, copied and edited, answers multi_turn_base_15 with two changed calls:
turn 2 asks `tail` for 2 lines where BFCL's ground truth asks 1 (both views fail: the
argument differs and the ground truth's result is missing), and turn 4 passes `mean` its
numbers in reverse (the strict view fails on the argument; BFCL's checker, comparing the
state and the results, passes it). One replay through the installed console script writes
all five outputs."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

# The console script as a process: run by CI and by `pytest FILE`, not the loop.
pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[2] / "sample" / "bfcl-multi-turn"
SCRIPT = Path(sys.executable).with_name("holodeck-lsp")
CASE = "multi_turn_base_15"
METRIC = "bfcl_equivalent"
BOTH, STRICT_ONLY = 2, 4  # the turns failing both views / only the strict one
TAIL_REASON = "tool 'tail': arg 'lines' mismatch: expected 1, got 2"
MEAN_REASON = "tool 'mean': arg 'numbers' mismatch: expected [3, 16, 60], got [60, 16, 3]"
METRIC_REASON = f"metric '{METRIC}' failed: score 0 < threshold 1"


def _edited_copy(tmp_path: Path) -> Path:
    folder = tmp_path / "bfcl-multi-turn"
    shutil.copytree(SAMPLE, folder, ignore=shutil.ignore_patterns(".holodeck", "__pycache__"))
    cassette = folder / "cassettes" / "oracle.json"
    recorded = json.loads(cassette.read_text(encoding="utf-8"))
    [case] = [case for case in recorded["cases"] if case["name"] == CASE]
    [tail] = case["turns"][BOTH]["tool_calls"]
    assert tail["name"].endswith("tail") and tail["args"]["lines"] == 1
    tail["args"]["lines"] = 2
    [mean] = case["turns"][STRICT_ONLY]["tool_calls"]
    assert mean["name"].endswith("mean") and mean["args"]["numbers"] == [3, 16, 60]
    mean["args"]["numbers"] = [60, 16, 3]
    cassette.write_text(json.dumps(recorded), encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def outputs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    if not SCRIPT.exists():
        pytest.skip("holodeck-lsp is not installed in this environment (pip install -e .)")
    tmp_path = tmp_path_factory.mktemp("bfcl-views")
    folder = _edited_copy(tmp_path)
    out = tmp_path / "out"
    ran = subprocess.run(
        [str(SCRIPT), "run", str(folder), "--case", CASE, "--no-save", "--color", "never",
         "--replay", str(folder / "cassettes" / "oracle.json"),
         "--report-json", str(out / "r.json"), "--report-md", str(out / "r.md"),
         "--report-html", str(out / "r.html"), "--junit", str(out / "r.xml")],
        capture_output=True, text=True, timeout=300, check=False, cwd=tmp_path,
    )  # fmt: skip
    assert ran.returncode == 1, ran.stdout[-2000:] + ran.stderr[-2000:]
    return {
        "console": ran.stdout,
        "json": json.loads((out / "r.json").read_text(encoding="utf-8")),
        "md": (out / "r.md").read_text(encoding="utf-8"),
        "html": (out / "r.html").read_text(encoding="utf-8"),
        "junit": ET.fromstring((out / "r.xml").read_text(encoding="utf-8")),
    }


def test_json_keeps_both_views_of_each_turn(outputs: dict[str, Any]) -> None:
    [case] = outputs["json"]["results"]
    views = [
        (turn["tools_matched"], next(m["passed"] for m in turn["metric_results"]
                                     if m["metric_name"] == METRIC))
        for turn in case["turns"]
    ]  # fmt: skip
    assert views == [(True, True), (True, True), (False, False), (True, True), (False, True)]


def test_the_console_lists_each_failing_view_of_a_failing_turn(outputs: dict[str, Any]) -> None:
    console: str = outputs["console"]
    failures = console[console.index(f"FAILED  {CASE}") :].splitlines()[1:]
    failures = [line.strip() for line in failures if line.startswith("      turn ")]
    assert len(failures) == 3, console[-2000:]
    assert failures[0] == f"turn {BOTH}: {TAIL_REASON}"
    assert failures[1].startswith(f"turn {BOTH}: {METRIC_REASON} (")
    assert failures[2] == f"turn {STRICT_ONLY}: {MEAN_REASON}"  # BFCL's view passed it


def test_markdown_names_each_failing_view_in_the_failing_turns_table(
    outputs: dict[str, Any],
) -> None:
    text: str = outputs["md"]
    rows = {}
    for line in text.splitlines():
        cells = [_unescaped(cell) for cell in re.split(r"(?<!\\) \| ", line.strip("| "))]
        if cells[0] == CASE and cells[1].isdigit():
            rows[int(cells[1])] = cells[3]
    assert rows[BOTH].startswith(f"{TAIL_REASON}; {METRIC_REASON} (")
    assert rows[STRICT_ONLY] == MEAN_REASON
    # Each turn's section lists the metric with its verdict, passing or not.
    assert _unescaped(text).count(f"| {METRIC} | 1 | 1 | ✓ passed |") == 4
    assert _unescaped(text).count(f"| {METRIC} | 0 | 1 | ✗ failed |") == 1


def _unescaped(markdown: str) -> str:
    return re.sub(r"\\(.)", r"\1", markdown)


def test_junit_carries_each_views_verdict_on_every_turn(outputs: dict[str, Any]) -> None:
    cases = outputs["junit"].findall("testsuite/testcase")
    assert len(cases) == 5
    verdicts = [
        {p.get("name"): p.get("value") for p in case.findall("properties/property")}
        for case in cases
    ]

    def views(strict: str, bfcl: str, score: str) -> dict[str, str]:
        return {"expected_tools": strict, f"metric.{METRIC}": bfcl, f"metric.{METRIC}.score": score}

    passing = views("passed", "passed", "1")
    assert verdicts == [passing, passing, views("failed", "failed", "0"), passing,
                        views("failed", "passed", "1")]  # fmt: skip
    failures = [case.find("failure") for case in cases]
    assert [f is not None for f in failures] == [False, False, True, False, True]
    both, strict_only = failures[BOTH], failures[STRICT_ONLY]
    assert both is not None and strict_only is not None
    assert TAIL_REASON in (both.text or "") and METRIC_REASON in (both.text or "")
    assert strict_only.get("message") == MEAN_REASON


def test_html_marks_which_view_failed_each_turn(outputs: dict[str, Any]) -> None:
    match = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', outputs["html"], re.S
    )
    assert match is not None
    data = json.loads(match.group(1))
    [case] = data["runs"][0]["cases"]
    turns = case["turns"]
    # A failed turn's kinds: "argument mismatch (…)" is the strict view, "grader" BFCL's.
    assert turns[BOTH]["kinds"] == ["argument mismatch (literal)", "grader"]
    assert turns[STRICT_ONLY]["kinds"] == ["argument mismatch (literal)"]
    # The page writes a metric's name once (data["metrics"]); a turn's metric points at it
    # by "x" and leaves "st" out when it passed.
    names = [definition[0] for definition in data["metrics"]]
    statuses = [
        next(m.get("st", "passed") for m in turn["metrics"] if names[m["x"]] == METRIC)
        for turn in turns
    ]
    assert statuses == ["passed", "passed", "failed", "passed", "passed"]
