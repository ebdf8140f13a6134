"""The comparison's text and Markdown (reports/run/comparison.py): how each side is named."""

from __future__ import annotations

from holodeck_lsp.engine.run_comparison import compare_reports
from holodeck_lsp.reports.run.comparison import render_markdown, render_text
from holodeck_lsp.schema.comparison import RunRef
from holodeck_lsp.schema.results import ReportSummary, TestReport, TestResult

RUN_ID = "20261202-013000-7a1c"


def _report() -> TestReport:
    return TestReport(
        agent_name="demo",
        agent_config_path="agent.yaml",
        results=[TestResult(test_name="a", test_input="hi", agent_response="ho", passed=True)],
        summary=ReportSummary(total_tests=1, passed=1, failed=0, pass_rate=100.0),
        timestamp="2026-12-02T00:00:00+00:00",
        holodeck_version="test",
    )


def test_a_side_is_named_by_its_label_and_run_id_once() -> None:
    comparison = compare_reports(
        _report(),
        _report(),
        base_ref=RunRef(label="v1", run_id="20261201-090000-0b2d"),
        head_ref=RunRef(label=f"latest run {RUN_ID}", run_id=RUN_ID),
    )
    for rendered in (render_text(comparison), render_markdown(comparison)):
        assert "v1 (20261201-090000-0b2d)" in rendered
        assert f"latest run {RUN_ID}" in rendered
        assert rendered.count(RUN_ID) == 1, rendered  # not "latest run <id> (<id>)"
