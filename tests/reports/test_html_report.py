"""The HTML report's Python half (reports/run/html): the embedded data is the page data,
escaped so no report text can end the JSON block; the Content Security Policy names the
page's own script and style by hash; failure kinds and closest calls come from the engine's
results. What the page draws from it is tested in a real browser:
tests/e2e/test_html_report_browser.py.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re

from holodeck_lsp.reports.run import html
from holodeck_lsp.reports.run.html.data import LONG_STRING, failure_kinds, page_data
from holodeck_lsp.reports.run.view import Block
from holodeck_lsp.schema.results import (
    ArgMatchDetail,
    MetricResult,
    ReportSummary,
    TestReport,
    TestResult,
    ToolInvocation,
    TurnResult,
)

HOSTILE = (
    "</script><script>window.__pwned=1</script><!-- <img src=x onerror=alert(1)> & \u2028\u2029"
    " مرحبا بالعالم 🤖 \ufffd\ufffd"
)


def report_of(*results: TestResult) -> TestReport:
    passed = sum(1 for r in results if r.passed)
    return TestReport(
        agent_name="agent <b>",
        agent_config_path="agent.yaml",
        results=list(results),
        summary=ReportSummary(
            total_tests=len(results),
            passed=passed,
            failed=len(results) - passed,
            pass_rate=100.0 * passed / len(results) if results else 0.0,
        ),
        timestamp="2026-12-01T00:00:00+00:00",
        holodeck_version="holodeck-lsp 0.1.0",
    )


def failing_turn(index: int, response: str = "37.84") -> TurnResult:
    return TurnResult(
        turn_index=index,
        input="what was it in 2007?",
        response=response,
        ground_truth="60.94",
        tool_invocations=[
            ToolInvocation(name="tools-lookup", args={"column": "2005"}, result=1),
            ToolInvocation(name="tools-lookup", args={"column": "2006"}, result=2),
        ],
        tool_calls=["tools-lookup", "tools-lookup"],
        tools_matched=False,
        arg_match_details=[
            ArgMatchDetail(
                tool="lookup",
                args_asserted={"column": {"regex": "2007"}},
                unmatched_reason='arg \'column\' mismatch: expected regex "2007", got "2005"'
                " (closest of 2 calls, index 1)",
            ),
            ArgMatchDetail(
                tool="divide", unmatched_reason="tool 'divide' was not called (calls: x)"
            ),
        ],
        metric_results=[
            MetricResult(metric_name="numeric", score=0.0, threshold=1.0, passed=False),
            MetricResult(metric_name="prog", kind="code", score=0.0, threshold=1.0, passed=False),
            MetricResult(metric_name="judge", kind="geval", score=0.2, error="timed out after 5s"),
        ],
        errors=["backend error: boom"],
    )


def embedded(page: str) -> object:
    match = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S
    )
    assert match is not None
    return json.loads(match.group(1))


def test_the_embedded_data_is_the_page_data_and_hostile_text_cannot_end_the_block() -> None:
    case = TestResult(test_name=HOSTILE, test_index=0, turns=[failing_turn(0, HOSTILE)])
    report = report_of(case)
    page = html.render(report)
    assert embedded(page) == page_data(report)
    # Exactly the template's two script elements and one JSON block end: nothing injected.
    assert page.count("<script") == 2 and page.count("</script>") == 2
    data_block = page.split('id="report-data">', 1)[1].split("</script>", 1)[0]
    for raw in ("<", ">", "&", "\u2028", "\u2029"):
        assert raw not in data_block
    assert "مرحبا" in data_block and "🤖" in data_block  # shown as written, not mangled


def test_the_policy_allows_only_the_pages_own_script_and_style() -> None:
    page = html.render(report_of())
    policy = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', page)
    assert policy is not None
    script = page.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]

    def digest(text: str) -> str:
        return base64.b64encode(hashlib.sha256(text.encode()).digest()).decode()

    assert f"script-src 'sha256-{digest(script)}'" in policy.group(1)
    assert f"style-src 'sha256-{digest(style)}'" in policy.group(1)
    assert "default-src 'none'" in policy.group(1)
    assert "http" not in policy.group(1)  # nothing from the network


def test_failure_kinds_name_each_kind_once_in_a_fixed_order() -> None:
    kinds = failure_kinds(Block.of_turn(failing_turn(0)))
    assert kinds == [
        "error",
        "argument mismatch (regex)",
        "missing tool",
        "wrong answer",
        "grader",
        "timeout",
    ]


def test_a_failed_assertion_shows_its_closest_call_and_the_differing_argument() -> None:
    report = report_of(TestResult(test_name="c", test_index=0, turns=[failing_turn(0)]))
    [turn] = page_data(report)["runs"][0]["cases"][0]["turns"]
    lookup, divide = turn["tools"]
    assert lookup["closest"] == 1 and lookup["arg"] == "column" and lookup["ok"] is False
    assert "closest" not in divide and "arg" not in divide
    # Errors and tool reasons are in "errors" / the assertions; "why" keeps the rest.
    assert turn["v"] == "failed" and turn["errors"] == ["backend error: boom"]
    assert turn["why"][0].startswith("metric 'numeric' failed: score 0 < threshold 1")


def test_a_single_turn_case_is_one_block_and_long_strings_are_cut_with_a_note() -> None:
    long = "x" * (LONG_STRING + 10)
    case = TestResult(test_input="q", agent_response=long, passed=True)
    data = page_data(report_of(case))
    [turn] = data["runs"][0]["cases"][0]["turns"]
    assert "t" not in turn and "v" not in turn  # passed: the default
    assert turn["response"].endswith("[10 more characters in the JSON report]")


def test_a_report_with_no_cases_renders() -> None:
    page = html.render(report_of())
    data = embedded(page)
    assert isinstance(data, dict) and data["runs"][0]["cases"] == []
    assert data["runs"][0]["summary"]["cases"] == 0


def test_the_inline_script_and_style_hold_nothing_that_ends_or_escapes_their_element() -> None:
    page = html.render(report_of())
    script = page.rsplit("<script>", 1)[1].split("</script>", 1)[0]
    style = page.split("<style>", 1)[1].split("</style>", 1)[0]
    for text in (script, style):
        assert "</" not in text and "<!--" not in text and "<script" not in text


def test_the_run_cost_is_in_the_page_only_when_every_case_is_priced() -> None:
    priced = [TestResult(test_input="q", passed=True, cost_usd=0.5) for _ in range(3)]
    assert page_data(report_of(*priced))["runs"][0]["summary"]["cost_usd"] == 1.5
    unpriced = [*priced, TestResult(test_input="q", passed=True)]
    assert page_data(report_of(*unpriced))["runs"][0]["summary"]["cost_usd"] is None
    assert page_data(report_of())["runs"][0]["summary"]["cost_usd"] is None
    # The tile is drawn by the page's script from that figure (tests/e2e checks it in Chromium).
    assert 'tile("sum-cost", "cost"' in html.render(report_of(*priced))
