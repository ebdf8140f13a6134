"""The HTML report in a real browser: Debian's Chromium driven by playwright-core
(html_report.mjs), every network request refused. The sample's replay page loads with no
console error and no request; its charts read back from the DOM equal the numbers of the JSON
report; "failed turns only" shows exactly the failing turns; a click opens that turn's detail;
a 1,000-case page is interactive within 2 s; a hostile transcript runs nothing; a report with
no cases renders. Screenshots go to e2e-artifacts/html-report/.
"""

from __future__ import annotations

import json
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from holodeck_lsp.cli import main
from holodeck_lsp.engine.reports import html
from holodeck_lsp.schema.results import TestReport, TestResult, ToolInvocation
from tests.e2e.test_vscode_e2e import CHROMIUM, artifacts_dir
from tests.engine.test_html_report import failing_turn, report_of
from tests.extension.npm_build import REPO, run_npm

HERE = Path(__file__).resolve().parent
SAMPLE = REPO / "sample" / "financial-assistant"
INTERACTIVE_MS = 2000
HOSTILE = [
    '<img src=x onerror="window.__pwned=1">',
    "<script>window.__pwned=2</script>",
    "</script><script>window.__pwned=3</script>",
    '"><svg onload="window.__pwned=4">',
    "שלום עולם — مرحبا بالعالم",
    "emoji 🤖👩🏽‍💻🇳🇱",
    "replaced bytes \ufffd\ufffd here",
    "javascript:window.__pwned=5",
    "long " + "x" * 20000,
]


def sample_report(tmp_path: Path) -> tuple[Path, TestReport]:
    out = tmp_path / "sample"
    status = main(
        ["run", str(SAMPLE), "--replay", str(SAMPLE / "cassettes" / "oracle.json"), "--quiet",
         "--report-json", str(out / "report.json"), "--report-html", str(out / "sample.html")]
    )  # fmt: skip
    assert status == 1  # the recording answers 7 turns wrongly, on purpose
    json_report = TestReport.model_validate_json((out / "report.json").read_text("utf-8"))
    return out / "sample.html", json_report


def hostile_report() -> TestReport:
    turns = []
    for index, text in enumerate(HOSTILE):
        turn = failing_turn(index, response=text)
        turn.input = text
        turn.tool_invocations.append(ToolInvocation(name=text[:40], args={text: text}, result=text))
        turn.metric_results[0].reasoning = text
        turns.append(turn)
    case = TestResult(test_name=HOSTILE[0], test_index=0, turns=turns, errors=[HOSTILE[1]])
    return report_of(case)


def thousand_cases(report: TestReport) -> TestReport:
    results = [
        r.model_copy(update={"test_index": i, "test_name": f"{r.test_name}-{i}"})
        for i, r in enumerate(report.results * (1000 // len(report.results)))
    ]
    return report.model_copy(update={"results": results})


def check_pages(pages: list[Path], shots: Path, tmp_path: Path) -> list[dict[str, object]]:
    node = shutil.which("node")
    if node is None:
        pytest.fail("node is not on PATH: install Node.js 20 (or set HOLODECK_E2E=0)")
    if not CHROMIUM.exists():
        pytest.fail(f"{CHROMIUM} not found: apt-get install -y chromium (or HOLODECK_E2E=0)")
    run_npm("ci", "--no-audit", "--no-fund", cwd=HERE)  # playwright-core, no browser download
    out = tmp_path / "result.json"
    args = [node, str(HERE / "html_report.mjs"), "--out", str(out), "--screenshots", str(shots),
            "--chromium", str(CHROMIUM)]  # fmt: skip
    for page in pages:
        args += ["--page", str(page)]
    done = subprocess.run(args, capture_output=True, text=True, timeout=300, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    results: list[dict[str, object]] = json.loads(out.read_text(encoding="utf-8"))
    return results


def expected_charts(report: TestReport) -> tuple[dict[str, tuple[int, int]], ...]:
    by_turn: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_tool: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    failing: list[dict[str, str]] = []
    for place, result in enumerate(report.results):
        position = result.test_index if result.test_index is not None else place
        for turn in result.turns or []:
            if turn.skipped:
                continue
            by_turn[str(turn.turn_index)][1] += 1
            by_turn[str(turn.turn_index)][0] += turn.passed
            if not turn.passed:
                failing.append({"c": str(position), "t": str(turn.turn_index), "v": "failed"})
            for detail in turn.arg_match_details or []:
                by_tool[detail.tool][1] += 1
                by_tool[detail.tool][0] += detail.passed
    return (
        {k: (p, t) for k, (p, t) in by_turn.items()},
        {k: (p, t) for k, (p, t) in by_tool.items()},
        {"failing": failing},  # type: ignore[dict-item]
    )


@pytest.mark.slow
def test_the_html_report_in_a_real_browser(tmp_path: Path) -> None:
    sample_page, sample = sample_report(tmp_path)
    pages = {"sample": sample_page}
    for name, report in (
        ("hostile", hostile_report()),
        ("empty", report_of()),
        ("thousand", thousand_cases(sample)),
    ):
        pages[name] = tmp_path / f"{name}.html"
        pages[name].write_text(html.render(report), encoding="utf-8")
    shots = artifacts_dir() / "html-report"
    found = dict(zip(pages, check_pages(list(pages.values()), shots, tmp_path), strict=True))

    for name, result in found.items():
        assert result["console"] == [] and result["pageErrors"] == [], (name, result)
        assert result["requests"] == [], (name, result["requests"])
        assert result["pwned"] is None and result.get("pwnedAfter") is None, name
        assert result["imgs"] == 0 and result["scripts"] == 2 and result["handlers"] == 0, name

    page = found["sample"]
    by_turn, by_tool, rest = expected_charts(sample)
    assert {b["label"]: (b["passed"], b["total"]) for b in page["turnChart"]} == by_turn  # type: ignore[index,union-attr]
    assert {b["label"]: (b["passed"], b["total"]) for b in page["toolChart"]} == by_tool  # type: ignore[index,union-attr]
    for bar in page["turnChart"]:  # type: ignore[union-attr]
        assert f"{bar['passed']}/{bar['total']}" in bar["text"]  # the drawn numbers, too
    summary = sample.summary
    assert page["summary"] == {  # type: ignore[comparison-overlap]
        "casesPassed": str(summary.passed),
        "casesFailed": str(summary.failed),
        "turnsPassed": str(summary.passed_turns),
        "turnsFailed": str(summary.total_turns - summary.passed_turns),
        "turnsSkipped": "0",
        "tokens": f"{sum(r.token_usage.total_tokens for r in sample.results if r.token_usage):,}",
    }
    kinds = {k["kind"]: k["count"] for k in page["kindChart"]}  # type: ignore[index,union-attr]
    assert sum(kinds.values()) >= len(rest["failing"]) and kinds["wrong answer"] == 7
    assert page["failedShown"] == rest["failing"]
    assert page["filterCount"] == f"{len(rest['failing'])} of {summary.total_turns} turns shown"
    first = rest["failing"][0]
    assert page["detail"]["c"] == first["c"] and page["detail"]["t"] == first["t"]  # type: ignore[index]
    assert page["detail"]["why"] and page["detail"]["differs"] == ["column"]  # type: ignore[index]

    assert found["empty"]["noCases"] is True and found["empty"]["cells"] == []
    hostile = found["hostile"]
    assert hostile["responses"] == [HOSTILE[0]]  # shown as text, whole
    big = found["thousand"]
    assert len(big["cells"]) == 100 * len(page["cells"])  # type: ignore[arg-type]
    assert big["readyMs"] + big["firstClickMs"] <= INTERACTIVE_MS, big  # type: ignore[operator]
    assert (shots / "sample.png").exists()
