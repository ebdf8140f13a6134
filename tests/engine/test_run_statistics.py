"""The run's statistics (engine/run_statistics.py) and where they are shown: the JSON report's
`statistics` (dropped again on reading), the Markdown section, the JUnit properties and the
HTML page's data — on reports built from result models, with repeats and two models."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from holodeck_lsp.engine.rollup import summarize
from holodeck_lsp.engine.run_statistics import run_statistics
from holodeck_lsp.engine.statistics.pass_k import pass_hat_k
from holodeck_lsp.engine.statistics.wilson import wilson_interval
from holodeck_lsp.reports.run import json_report, junit, markdown
from holodeck_lsp.reports.run.html.data import page_data
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult

MODELS = ["openai:gpt-a", "anthropic:claude-b"]


def _result(model: str, case: int, repeat: int, passed: bool) -> TestResult:
    turns = [
        TurnResult(turn_index=0, input="q", passed=True, execution_time_ms=100 * (case + 1)),
        TurnResult(turn_index=1, input="r", passed=passed, execution_time_ms=1000),
    ]
    return TestResult(
        test_name=f"case {case}",
        test_index=case,
        passed=passed,
        turns=turns,
        model=model,
        repeat=repeat,
        cost_usd=0.5,
    )


@pytest.fixture
def report() -> TestReport:
    # gpt-a: case c passes in repeats < c + 1 of 3 (case 0: 1/3, 1: 2/3, 2: 3/3, 3: 3/3);
    # claude-b fails everything but case 3.
    results = [
        _result(model, case, repeat, (repeat <= case + 1) if model == MODELS[0] else case == 3)
        for model in MODELS
        for case in range(4)
        for repeat in (1, 2, 3)
    ]
    return TestReport(
        agent_name="stats",
        agent_config_path="agent.yaml",
        results=results,
        summary=summarize(results),
        timestamp="2026-12-06T09:00:00Z",
        holodeck_version="holodeck-lsp test",
        models=MODELS,
        repeats=3,
        model_summaries={m: summarize([r for r in results if r.model == m]) for m in MODELS},
    )


def test_figures(report: TestReport) -> None:
    figures = run_statistics(report)
    a, b = figures.models
    assert (a.cases.passed, a.cases.measured) == (9, 12)
    interval = wilson_interval(9, 12)
    assert a.cases.low == pytest.approx(interval.low * 100)
    assert a.cases.high == pytest.approx(interval.high * 100)
    expected = [(1, 3), (2, 3), (3, 3), (3, 3)]
    for k in (1, 2, 3):
        mean = sum(pass_hat_k(c, n, k) for c, n in expected) / 4
        assert a.pass_hat_k[k - 1] == pytest.approx(mean)
    assert a.pass_hat_k[2] == pytest.approx(0.5)  # only cases 2 and 3 pass every time
    assert a.pass_at_k[2] == 1.0
    assert [t.turn_index for t in a.by_turn_index] == [0, 1]
    assert a.by_turn_index[0].passed == 12
    assert b.cases.passed == 3
    assert a.cost_usd == pytest.approx(6.0)
    assert a.latency_p50_ms == pytest.approx(700.0)  # 100..400 and twelve 1000s: median
    assert figures.suite.measured == 24


def test_json_report_carries_statistics_and_reads_back(report: TestReport) -> None:
    text = json_report.render(report)
    data = json.loads(text)
    assert data["statistics"]["models"][0]["pass_hat_k"][2] == pytest.approx(0.5)
    assert data["statistics"]["suite"]["passed"] == 12
    assert TestReport.model_validate_json(text) == report


def test_markdown_statistics_section(report: TestReport) -> None:
    text = markdown.render(report)
    assert "## Statistics" in text
    assert "| `openai:gpt-a` | 75.0% [" in text
    assert "75% · 58% · 50%" in text  # gpt-a's pass^k, k = 1, 2, 3
    assert "### Pass rate by turn" in text


def test_junit_properties(report: TestReport) -> None:
    root = ET.fromstring(junit.render(report))
    properties = {p.get("name"): p.get("value") for p in root.find("properties") or []}
    assert properties["pass_rate"] == "50.00"
    assert properties["openai:gpt-a:pass^3"] == "0.5000"
    assert float(properties["anthropic:claude-b:pass_rate_low_95"]) > 0


def test_html_page_data(report: TestReport) -> None:
    runs = page_data(report)["runs"]
    assert runs[0]["summary"]["stats"]["rate"].startswith("75.0% [")
    assert runs[1]["summary"]["stats"]["pass_hat_k"] == "25% · 25% · 25%"


def test_html_page_states_paired_comparisons(report: TestReport) -> None:
    from holodeck_lsp.engine.run_comparison import compare_reports
    from holodeck_lsp.schema.comparison import RunRef

    [paired] = page_data(report)["report"]["paired"]
    # 4 cases: the exact test cannot tell (p = 0.25), whatever the normal interval says.
    assert paired.startswith("no difference this suite can detect (anthropic:claude-b passes ")
    assert "fewer turns than openai:gpt-a" in paired and "p = 0.25" in paired
    comparison = compare_reports(
        report, report, base_ref=RunRef(label="base"), head_ref=RunRef(label="head")
    )
    lines = page_data(report, None, comparison)["baseline"]["statistics"]
    assert any("the runs agree on every case" in line for line in lines)
    assert any(line.startswith("cost and speed: base ") for line in lines)
