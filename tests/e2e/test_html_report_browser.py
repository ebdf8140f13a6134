"""The HTML report in a real browser: Debian's Chromium driven by playwright-core
(html_report.mjs), every network request refused. The sample's replay page loads with no
console error and no request; its charts read back from the DOM equal the numbers of the JSON
report; "failed turns only" shows exactly the failing turns; a click opens that turn's detail;
a 1,000-case page is interactive within 2 s; a hostile transcript runs nothing; a report with
no cases renders. Two models (one with a hostile name) with repeats and a baseline: each
model's chart bars equal its own numbers, flaky turns are marked, "regressions only" shows
exactly the regressed turns and the detail says what changed. Screenshots go to
html-report/ in the e2e artifacts folder (test_vscode_e2e.artifacts_dir).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import defaultdict
from pathlib import Path
from typing import NamedTuple

import pytest

from holodeck_lsp.reports.run import html
from holodeck_lsp.reports.run.html.data import page_data
from holodeck_lsp.reports.run.view import duration, run_cost, usd
from holodeck_lsp.schema.comparison import Comparison, MetricDelta, RunRef, SideOfTurn, TurnChange
from holodeck_lsp.schema.results import TestReport, TestResult, ToolInvocation
from tests.e2e.test_vscode_e2e import CHROMIUM, artifacts_dir, playwright_core
from tests.extension.npm_build import REPO
from tests.reports.test_html_report import failing_turn, report_of

HERE = Path(__file__).resolve().parent
SAMPLE = REPO / "sample" / "financial-assistant"
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
    # A copy: the run is stored beside its agent (.holodeck/runs), never in the checkout.
    agent = tmp_path / "financial-assistant"
    shutil.copytree(SAMPLE, agent, ignore=shutil.ignore_patterns("__pycache__", ".holodeck"))
    # The sample's local model has no list price: one priced here, so the page has a cost tile.
    (agent / "holodeck-lsp.yaml").write_text(
        'prices:\n  "ollama:qwen2.5:7b": {input: 0.5, output: 1.5}\n', encoding="utf-8"
    )
    # In its own process: the sample's tools and graders import sibling modules by name
    # (`convfinqa`), which another test in the same worker may have imported from elsewhere.
    done = subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", "run", str(agent),
         "--replay", str(agent / "cassettes" / "oracle.json"), "--quiet",
         "--report-json", str(out / "report.json"), "--report-html", str(out / "sample.html")],
        capture_output=True, text=True, timeout=300,
    )  # fmt: skip
    assert done.returncode == 1, done.stderr  # the recording answers 7 turns wrongly, on purpose
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
    playwright_core()
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


class Browsed(NamedTuple):
    sample: TestReport
    #: what html_report.mjs read back from each page, by name
    found: dict[str, dict[str, object]]
    shots: Path


@pytest.fixture(scope="module")
def browsed(tmp_path_factory: pytest.TempPathFactory) -> Browsed:
    """Both tests' pages, from one replay of the sample, opened by one html_report.mjs (one
    browser, a fresh context per page): the sample's, a hostile, an empty and a 1,000-case
    report (the first test), the two models with a baseline (the second)."""
    tmp_path = tmp_path_factory.mktemp("html-report")
    sample_page, sample = sample_report(tmp_path)
    pages = {"sample": sample_page}
    for name, report in (
        ("hostile", hostile_report()),
        ("empty", report_of()),
        ("thousand", thousand_cases(sample)),
    ):
        pages[name] = tmp_path / f"{name}.html"
        pages[name].write_text(html.render(report), encoding="utf-8")
    two_models = two_model_report(sample)
    pages["two-models"] = tmp_path / "two-models.html"
    pages["two-models"].write_text(
        html.render_html(two_models, comparison_for(two_models)), encoding="utf-8"
    )
    shots = artifacts_dir() / "html-report"
    found = dict(zip(pages, check_pages(list(pages.values()), shots, tmp_path), strict=True))
    return Browsed(sample, found, shots)


@pytest.mark.slow
def test_the_html_report_in_a_real_browser(browsed: Browsed) -> None:
    sample, shots = browsed.sample, browsed.shots
    found = {name: browsed.found[name] for name in ("sample", "hostile", "empty", "thousand")}

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
    # The cost tile: the cases' cost at the price list, written as the terminal writes it.
    cost = run_cost(r.cost_usd for r in sample.results)
    assert cost is not None, "holodeck-lsp.yaml prices the sample's model"
    assert page["cost"]["value"] == usd(cost), page["cost"]  # type: ignore[index]
    assert page["cost"]["title"].startswith("the agent's tokens at the price list")  # type: ignore[index]
    assert found["empty"]["cost"] is None
    # The time tile says what it measures (the terminal's figure is the run's wall time).
    assert page["time"] == {  # type: ignore[comparison-overlap]
        "value": duration(summary.total_duration_ms),
        "label": "agent time",
        "title": "the agent's answering time, summed over turns (judging, grading and start-up "
        "not included; turns run in parallel add up)",
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
    # It becomes interactive; how fast is bench/html_report.py's figure (docs/benchmarks.md),
    # not an assertion here: this test shares two cores with the rest of the suite.
    assert isinstance(big["readyMs"], int) and isinstance(big["firstClickMs"], int), big
    assert (shots / "sample.png").exists()


GPT, CLAUDE = "openai:gpt-4o", 'anthropic:<img src=x onerror="window.__pwned=9">'


def two_model_report(sample: TestReport) -> TestReport:
    """The sample's replay as two models: GPT's run as recorded; the second model (a hostile
    name) twice, its second repeat answering every case's first turn the other way (flaky)."""
    results: list[TestResult] = [
        r.model_copy(update={"model": GPT, "repeat": 1}) for r in sample.results
    ]
    for repeat in (1, 2):
        for r in sample.results:
            turns = [t.model_copy() for t in r.turns or []]
            if repeat == 2 and turns:
                turns[0] = turns[0].model_copy(update={"passed": not turns[0].passed})
            passed = all(t.passed for t in turns) if turns else r.passed
            results.append(
                r.model_copy(
                    update={
                        "model": CLAUDE,
                        "repeat": repeat,
                        "turns": turns or None,
                        "passed": passed,
                    }
                )
            )
    return sample.model_copy(update={"results": results, "models": [GPT, CLAUDE], "repeats": 2})


def regressed_turns(report: TestReport) -> list[tuple[int, str, int]]:
    """(column, case name, turn) of three turns: GPT's first failing one, the second model's
    first two passing ones."""
    gpt = [
        (0, r.test_name or "", t.turn_index)
        for r in report.results
        if r.model == GPT
        for t in r.turns or []
        if not t.passed
    ]
    other = [(1, r.test_name or "", t.turn_index) for r in report.results
             if r.model == CLAUDE and r.repeat == 1 for t in r.turns or [] if t.passed]  # fmt: skip
    return [gpt[0], *other[:2]]


def comparison_for(report: TestReport) -> Comparison:
    models = [GPT, CLAUDE]
    was = SideOfTurn(passed=True, passes=1, runs=1)
    now = SideOfTurn(passed=False, passes=0, runs=1, reason=HOSTILE[1])
    delta = MetricDelta(metric_name="numeric", base_score=1.0, head_score=0.0)
    changes = [
        TurnChange(
            kind="regression", case=name, turn_index=t, model=models[m], base=was, head=now,
            metric_deltas=[delta],
        )
        for m, name, t in regressed_turns(report)
    ]  # fmt: skip
    first_gpt = next(r for r in report.results if r.model == GPT)
    fixed = TurnChange(
        kind="fix", case=first_gpt.test_name or "", turn_index=1, model=GPT,
        base=SideOfTurn(passed=False, reason="was wrong"), head=SideOfTurn(passed=True),
    )  # fmt: skip
    base, head = RunRef(label=HOSTILE[3]), RunRef(label="latest")
    return Comparison(base=base, head=head, changes=[*changes, fixed])


@pytest.mark.slow
def test_two_models_and_a_baseline_in_a_real_browser(browsed: Browsed) -> None:
    sample, shots = browsed.sample, browsed.shots
    report = two_model_report(sample)
    base = comparison_for(report)  # as the page was rendered (deterministic)
    page = browsed.found["two-models"]
    assert page["console"] == [] and page["pageErrors"] == [] and page["requests"] == []
    assert page["pwned"] is None and page["pwnedAfter"] is None and page["imgs"] == 0

    data = page_data(report, comparison=base)
    for m, model in enumerate([GPT, CLAUDE]):
        own = report.model_copy(update={"results": [r for r in report.results if r.model == model]})
        by_turn, by_tool, _ = expected_charts(own)
        bars = [b for b in page["turnChart"] if b["model"] == m]  # type: ignore[union-attr,index]
        assert {b["label"]: (b["passed"], b["total"]) for b in bars} == by_turn, model
        tools = [b for b in page["toolChart"] if b["model"] == m]  # type: ignore[union-attr,index]
        assert {b["label"]: (b["passed"], b["total"]) for b in tools} == by_tool, model
        kinds: dict[str, int] = defaultdict(int)
        for case in data["runs"][m]["cases"]:
            for entry in [case, *case.get("more", [])]:
                for turn in entry["turns"]:
                    for kind in turn.get("kinds", []):
                        kinds[kind] += 1
        drawn = {k["kind"]: k["count"] for k in page["kindChart"] if k["model"] == m and k["count"]}  # type: ignore[union-attr,index]
        assert drawn == dict(kinds), model
        row = page["modelSummaries"][m]  # type: ignore[index]
        summary = data["runs"][m]["summary"]
        assert row["passed"] == str(summary["passed"]) and row["turns_passed"] == str(
            summary["turns_passed"]
        )
        assert row["model"].endswith(model)  # the hostile name, as text
    assert page["legend"] == [f"A {GPT}", f"B {CLAUDE}"]

    # The second model's cells show "passes/runs" and the flipped first turns are flaky.
    other = [c for c in page["cells"] if c["m"] == "1"]  # type: ignore[union-attr,index]
    assert other and all(
        c["runs"] == "2" and c["text"].startswith(f"{c['passes']}/2") for c in other
    )
    flaky = {c["c"] for c in other if c["flaky"]}
    assert flaky == {str(r.test_index) for r in sample.results if r.turns}

    position = {(m, c["name"]): c["i"] for m, run in enumerate(data["runs"]) for c in run["cases"]}
    regressed = {
        (str(m), str(position[(m, name)]), str(t)) for m, name, t in regressed_turns(report)
    }
    assert {(c["m"], c["c"], c["t"]) for c in page["regressionsShown"]} == regressed  # type: ignore[union-attr,index]
    assert len(page["regressionsShown"]) == 3  # type: ignore[arg-type]
    assert page["baselineSummary"].startswith(f"3 regressions, 1 fix vs {HOSTILE[3]}")  # type: ignore[union-attr]
    detail = page["changeDetail"]
    assert detail["kind"] == "regression" and detail["base"][:2] == ["passed", "1/1"]  # type: ignore[index]
    assert detail["head"] == ["failed", "0/1", HOSTILE[1]]  # type: ignore[index]
    assert detail["deltas"] == [["numeric", "standard", "1", "0", "-1"]]  # type: ignore[index]
    # In a panel as narrow as the editor's: the table fits, each row name on one line.
    assert not detail["overflows"] and detail["wrappedRowNames"] == []  # type: ignore[index]
    assert (shots / "two-models.png").exists() and (shots / "two-models-regressions.png").exists()
