"""A simulated-user case in every report format: the simulator's failure apart from the
agent's (JUnit `<error type="simulator">`, the Markdown status, the HTML page's data), the
`at end` checks, and the simulator's model and prompt fingerprint."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from typing import Any

from holodeck_lsp.engine.rollup import multi_turn_result, summarize
from holodeck_lsp.reports.run import junit, markdown
from holodeck_lsp.reports.run.html.data import page_data
from holodeck_lsp.schema.results import (
    MetricResult,
    SimulationResult,
    TestReport,
    TestResult,
    TurnResult,
)

FINGERPRINT = "f" * 64


def _result(name: str, index: int, **simulation: Any) -> TestResult:
    turn = TurnResult(turn_index=0, input="hi", response="hello", passed=True)
    result = multi_turn_result(name, index, [turn], "2026-12-06T09:00:00+00:00")
    model = "anthropic:claude-haiku-4-5"
    record = SimulationResult(model=model, fingerprint=FINGERPRINT, **simulation)
    failed = record.failure is not None
    at_end_passed = record.at_end is None or record.at_end.passed
    return result.model_copy(
        update={
            "simulation": record,
            "simulator_failed": failed,
            "passed": not failed and at_end_passed,
        }
    )


def _report() -> TestReport:
    at_end = TurnResult(
        turn_index=1,
        input="(at end: the whole conversation)",
        metric_results=[MetricResult(metric_name="communicate_info", passed=False, score=0.0)],
    )
    results = [
        _result("stuck", 0, failure="never_stopped", failure_detail="no stop marker"),
        _result("unsaid", 1, at_end=at_end, stop_marker="###STOP###"),
    ]
    return TestReport(
        agent_name="shop",
        agent_config_path="agent.yaml",
        results=results,
        summary=summarize(results),
        timestamp="2026-12-06T09:00:00+00:00",
        holodeck_version="holodeck-lsp test",
    )


def test_the_summary_counts_the_simulator_apart() -> None:
    summary = _report().summary
    assert (summary.passed, summary.failed, summary.simulator_failed) == (0, 1, 1)
    assert summary.pass_rate == 0.0


def test_junit_keeps_the_simulators_failure_an_error() -> None:
    root = ET.fromstring(junit.render(_report()))
    stuck, unsaid = root.findall("testsuite")
    [error] = stuck.findall("testcase[@name='simulated user']/error")
    assert error.get("type") == "simulator" and "never_stopped" in (error.get("message") or "")
    assert stuck.get("failures") == "0" and stuck.get("errors") == "1"
    properties = {p.get("name"): p.get("value") for p in stuck.iter("property")}
    assert properties["simulator_model"] == "anthropic:claude-haiku-4-5"
    assert properties["simulator_prompt"] == FINGERPRINT
    [failure] = unsaid.findall("testcase[@name='at end']/failure")
    assert "communicate_info" in (failure.get("message") or "")


def test_markdown_and_html_say_simulator_failed() -> None:
    report = _report()
    assert "🤖 simulator failed" in markdown.render(report)
    data = page_data(report, None, None)
    run = data["runs"][0]
    assert run["summary"]["simulator_failed"] == 1 and run["summary"]["failed"] == 1
    stuck = run["cases"][0]
    assert stuck["sim"]["failure"] == "never_stopped"
    assert stuck["sim"]["fingerprint"] == FINGERPRINT[:12]
