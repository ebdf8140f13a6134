"""The three renderings of a TestReport: JSON (round trip), Markdown (for people), JUnit XML."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from holodeck_lsp.reports.run import json_report, junit, markdown
from holodeck_lsp.schema.results import (
    ArgMatchDetail,
    MetricResult,
    ReportSummary,
    TestReport,
    TestResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
)

MISMATCH = "arg 'a' mismatch: expected {fuzzy: '206588'}, got '206,000'"
GRADER_ERROR = "grader 'graders:program_equivalence' raised ValueError: bad program"
SESSION_LOST = "session unrecoverable: two consecutive send() failures"


def usage(prompt: int, completion: int) -> TokenUsage:
    return TokenUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


def single_turn_case() -> TestResult:
    """test_cases[0]: a passing single-turn case without a name."""
    return TestResult(
        test_index=0,
        test_input="What is the capital of France?",
        agent_response="Paris.",
        ground_truth="Paris",
        tool_calls=["search"],
        tool_invocations=[ToolInvocation(name="search", args={"q": "capital of France"})],
        expected_tools=["search"],
        tools_matched=True,
        arg_match_details=[
            ArgMatchDetail(tool="search", matched_calls=1, matched_call_index=0),
        ],
        metric_results=[
            MetricResult(metric_name="equality", score=1.0, threshold=1.0, passed=True),
        ],
        passed=True,
        execution_time_ms=850,
        timestamp="2026-04-20T10:00:00Z",
        token_usage=usage(20, 5),
    )


def multi_turn_case() -> TestResult:
    """test_cases[1]: turn 0 passes, turn 1 fails (arg mismatch, grader error), turn 2 skipped."""
    subtract = ToolInvocation(name="calc_subtract", args={"a": "206,000", "b": 181001})
    turns = [
        TurnResult(
            turn_index=0,
            input="what is the net cash from operating activities in 2009?",
            response="206588",
            ground_truth="206588",
            metric_results=[
                MetricResult(metric_name="numeric", score=1.0, threshold=1.0, passed=True),
            ],
            passed=True,
            execution_time_ms=1200,
            token_usage=usage(100, 10),
        ),
        TurnResult(
            turn_index=1,
            input="what is the difference?\nanswer | briefly",
            response="The difference is 24999 | roughly.",
            ground_truth="25587",
            expected_tools=[{"name": "subtract", "args": {"a": {"fuzzy": "206588"}}}],
            tool_calls=["calc_subtract"],
            tool_invocations=[subtract],
            tools_matched=False,
            arg_match_details=[
                ArgMatchDetail(
                    tool="subtract",
                    args_asserted={"a": {"fuzzy": "206588"}},
                    matched_calls=0,
                    unmatched_reason=MISMATCH,
                )
            ],
            metric_results=[
                MetricResult(
                    metric_name="numeric",
                    score=0.0,
                    threshold=1.0,
                    passed=False,
                    reasoning="24999 != 25587",
                ),
                MetricResult(
                    metric_name="program_equivalence",
                    kind="code",
                    passed=False,
                    error=GRADER_ERROR,
                ),
            ],
            passed=False,
            execution_time_ms=2300,
            token_usage=usage(200, 20),
            errors=[],
        ),
        TurnResult(
            turn_index=2,
            input="what percentage change does this represent?",
            skipped=True,
            errors=[SESSION_LOST],
        ),
    ]
    return TestResult(
        test_name="cash | flow",
        test_index=1,
        test_input="\n---\n".join(turn.input for turn in turns),
        agent_response=None,
        tool_calls=["calc_subtract"],
        tool_invocations=[subtract],
        tools_matched=False,
        metric_results=[
            MetricResult(metric_name="numeric", score=0.5, threshold=1.0, passed=False),
        ],
        passed=False,
        execution_time_ms=3500,
        errors=[f"[turn 2] {SESSION_LOST}"],
        timestamp="2026-04-20T10:00:01Z",
        token_usage=usage(300, 30),
        turns=turns,
    )


@pytest.fixture
def report() -> TestReport:
    return TestReport(
        agent_name="financial-assistant",
        agent_config_path="sample/financial-assistant/agent.yaml",
        results=[single_turn_case(), multi_turn_case()],
        summary=ReportSummary(
            total_tests=2,
            passed=1,
            failed=1,
            pass_rate=50.0,
            total_duration_ms=4350,
            total_turns=4,
            passed_turns=2,
            metrics_evaluated={"numeric": 2, "equality": 1},
            average_scores={"numeric": 0.5, "equality": 1.0},
        ),
        timestamp="2026-04-20T10:00:05Z",
        holodeck_version="holodeck-lsp 0.1.0",
        environment={"python": "3.11"},
    )


# --------------------------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------------------------


def test_json_round_trips(report: TestReport) -> None:
    text = json_report.render(report)
    assert TestReport.model_validate_json(text) == report
    assert text.startswith('{\n  "agent_name": "financial-assistant"')


# --------------------------------------------------------------------------------------------
# Markdown
# --------------------------------------------------------------------------------------------


def table_rows(text: str, header_start: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header_start))
    rows = []
    for line in lines[start + 2 :]:
        if not line.startswith("|"):
            break
        rows.append(line)
    return rows


def test_markdown_lists_failing_turns_first_with_each_failing_views_reason(
    report: TestReport,
) -> None:
    text = markdown.render(report)
    assert text.index("## Failing turns") < text.index("## Summary")
    rows = table_rows(text, "| Test case | Turn |")
    assert rows == [
        r"| cash \| flow | 1 | ❌ failed | tool 'subtract': arg 'a' mismatch: expected "
        r"{fuzzy: '206588'}, got '206,000'; metric 'numeric' failed: score 0 \< threshold 1 "
        r"(24999 != 25587); metric 'program\_equivalence' error: grader "
        r"'graders:program\_equivalence' raised ValueError: bad program |",
        r"| cash \| flow | 2 | ⏭ skipped | session unrecoverable: two consecutive send() "
        r"failures |",
    ]


def test_markdown_title_and_summary_line(report: TestReport) -> None:
    text = markdown.render(report)
    lines = text.splitlines()
    assert lines[0] == "# Test report: financial-assistant"
    assert lines[2].startswith("**Failed**: 1 of 2 test cases passed (50.0%)")
    assert "2 of 4 turns passed" in lines[2]
    assert "355 tokens" in lines[2]


def test_markdown_table_lists_failing_cases_first_with_escaped_pipes(report: TestReport) -> None:
    rows = table_rows(markdown.render(report), "| Test case | Result |")
    assert len(rows) == 2
    assert rows[0].startswith(r"| cash \| flow | ❌ failed | 1/3 | 3.50 s | 330 |")
    assert rows[1].startswith(r"| \#0 | ✅ passed | 1/1 | 850 ms | 25 |")
    # Every row has exactly the table's five columns once escaped pipes are discounted.
    for row in rows:
        assert len(re.findall(r"(?<!\\)\|", row)) == 6


def test_markdown_sections_follow_file_order_with_a_block_per_turn(report: TestReport) -> None:
    text = markdown.render(report)
    single = text.index("## \\#0: ✅ passed")
    multi = text.index(r"## cash \| flow (#1): ❌ failed")
    assert single < multi
    turn_headings = re.findall(r"^### Turn (\d+): (.*)$", text, flags=re.MULTILINE)
    assert turn_headings == [("0", "✅ passed"), ("1", "❌ failed"), ("2", "⏭ skipped")]
    # The single-turn case is one block, without a turn heading, before the first turn.
    assert text.index("What is the capital of France?") < text.index("### Turn 0")


def test_markdown_turn_block_details(report: TestReport) -> None:
    text = markdown.render(report)
    turn1 = text[text.index("### Turn 1") : text.index("### Turn 2")]
    # Input and response verbatim in fenced blocks (the pipe is not escaped there).
    assert "```text\nwhat is the difference?\nanswer | briefly\n```" in turn1
    assert "```text\nThe difference is 24999 | roughly.\n```" in turn1
    assert "**Ground truth:** `25587`" in turn1
    # Tool call with compact JSON args; the failed assertion with its reason.
    assert '- call 0: `calc_subtract` `{"a":"206,000","b":181001}`' in turn1
    assert '- ✗ `subtract` `{"a":{"fuzzy":"206588"}}` — tool \'subtract\': arg \'a\'' in turn1
    # Metric table: failed metric with its reasoning, errored grader with its message.
    metric_rows = table_rows(turn1, "| Metric |")
    assert metric_rows[0] == "| numeric | 0 | 1 | ✗ failed | 24999 != 25587 |"
    assert metric_rows[1].startswith("| program\\_equivalence | — | — | ⚠ error | grader ")
    assert "raised ValueError: bad program" in metric_rows[1]
    assert "agent time 2.30 s · tokens 220" in turn1

    turn0 = text[text.index("### Turn 0") : text.index("### Turn 1")]
    assert "| numeric | 1 | 1 | ✓ passed |  |" in turn0

    turn2 = text[text.index("### Turn 2") :]
    assert SESSION_LOST in turn2
    assert "**Response**" not in turn2
    assert "duration" not in turn2


def test_markdown_single_turn_block_and_case_errors(report: TestReport) -> None:
    text = markdown.render(report)
    single = text[text.index("## \\#0") : text.index("## cash")]
    assert "Result: ✅ passed · agent time 850 ms · tokens 25" in single
    assert "- ✓ `search` — matched call 0" in single
    assert '- call 0: `search` `{"q":"capital of France"}`' in single
    multi = text[text.index("## cash") : text.index("### Turn 0")]
    assert "1 of 3 turns passed · agent time 3.50 s · tokens 330" in multi
    assert "**Metrics (mean over turns)**" in multi
    # Turn errors are shown in their turn, not repeated at the case level.
    assert "Test case errors" not in multi


def test_markdown_escapes_agent_text() -> None:
    case = TestResult(
        test_name="a|b\nc *bold* [link](x) <b>",
        test_index=0,
        test_input="```\nfenced? ``` no",
        agent_response="# not a heading",
        errors=["1. not a list | x"],
        passed=False,
    )
    report = TestReport(
        agent_name="agent",
        agent_config_path="agent.yaml",
        results=[case],
        summary=ReportSummary(total_tests=1, passed=0, failed=1, pass_rate=0.0),
        timestamp="t",
        holodeck_version="v",
    )
    text = markdown.render(report)
    row = table_rows(text, "| Test case | Result |")[0]
    assert row.startswith(r"| a\|b<br>c \*bold\* \[link\](x) \<b\> | ❌ failed |")
    # A fence longer than any backtick run inside the text.
    assert "````text\n```\nfenced? ``` no\n````" in text
    assert "```text\n# not a heading\n```" in text
    assert r"- 1\. not a list \| x" in text


# --------------------------------------------------------------------------------------------
# JUnit
# --------------------------------------------------------------------------------------------


def test_junit_structure_and_counts(report: TestReport) -> None:
    root = ET.fromstring(junit.render(report))
    assert root.tag == "testsuites"
    assert root.get("name") == "financial-assistant"
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("4", "1", "1")
    assert root.get("time") == "4.350"

    single, multi = root.findall("testsuite")
    assert single.get("name") == "#0"
    assert (single.get("tests"), single.get("failures"), single.get("skipped")) == ("1", "0", "0")
    assert single.get("time") == "0.850"
    (only,) = single.findall("testcase")
    assert only.get("classname") == "#0"
    assert only.get("name") == "What is the capital of France?"
    assert only.find("failure") is None
    assert only.findtext("system-out") == "Paris."

    assert multi.get("name") == "cash | flow"
    assert (multi.get("tests"), multi.get("failures"), multi.get("skipped")) == ("3", "1", "1")
    assert multi.get("time") == "3.500"
    names = [case.get("name") for case in multi.findall("testcase")]
    assert names == [
        "turn 0: what is the net cash from operating activities in 2009?",
        "turn 1: what is the difference? answer | briefly",
        "turn 2: what percentage change does this represent?",
    ]
    assert {case.get("classname") for case in multi.findall("testcase")} == {"cash | flow"}


def test_junit_failure_and_skip_messages(report: TestReport) -> None:
    root = ET.fromstring(junit.render(report))
    turn0, turn1, turn2 = root.findall("testsuite")[1].findall("testcase")

    assert turn0.find("failure") is None and turn0.find("skipped") is None
    failure = turn1.find("failure")
    assert failure is not None
    message = failure.get("message") or ""
    assert f"tool 'subtract': {MISMATCH}" in message
    assert "metric 'numeric' failed: score 0 < threshold 1 (24999 != 25587)" in message
    assert f"metric 'program_equivalence' error: {GRADER_ERROR}" in message
    assert failure.text is not None and MISMATCH in failure.text.splitlines()[0]
    assert turn1.findtext("system-out") == "The difference is 24999 | roughly."

    skipped = turn2.find("skipped")
    assert skipped is not None and skipped.get("message") == SESSION_LOST
    assert turn2.find("failure") is None
    assert turn2.find("system-out") is None


def test_junit_reports_a_case_failure_no_turn_explains() -> None:
    turn = TurnResult(turn_index=0, input="hi", response="hello", passed=True)
    case = TestResult(
        test_name="grader blew up",
        test_input="hi",
        passed=False,
        errors=["grader 'g:f' raised KeyError (fail_on_error)"],
        turns=[turn],
    )
    report = TestReport(
        agent_name="agent",
        agent_config_path="agent.yaml",
        results=[case],
        summary=ReportSummary(total_tests=1, passed=0, failed=1, pass_rate=0.0),
        timestamp="t",
        holodeck_version="v",
    )
    suite = ET.fromstring(junit.render(report)).find("testsuite")
    assert suite is not None
    assert (suite.get("tests"), suite.get("failures")) == ("2", "1")
    extra = suite.findall("testcase")[-1]
    assert extra.get("name") == "test case"
    failure = extra.find("failure")
    assert failure is not None
    assert failure.get("message") == "grader 'g:f' raised KeyError (fail_on_error)"


def test_junit_escapes_and_cleans_text() -> None:
    case = TestResult(
        test_name='<"quoted"> & more',
        test_input="x" * 200,
        agent_response="colour \x1b[31mred\x1b[0m </system-out> & ]]>",
        passed=False,
        errors=["bad\x00byte"],
    )
    report = TestReport(
        agent_name="agent",
        agent_config_path="agent.yaml",
        results=[case],
        summary=ReportSummary(total_tests=1, passed=0, failed=1, pass_rate=0.0),
        timestamp="t",
        holodeck_version="v",
    )
    root = ET.fromstring(junit.render(report))
    testcase = root.find("testsuite/testcase")
    assert testcase is not None
    assert testcase.get("classname") == '<"quoted"> & more'
    assert len(testcase.get("name") or "") == 80
    assert testcase.findtext("system-out") == ("colour \\x1b[31mred\\x1b[0m </system-out> & ]]>")
    failure = testcase.find("failure")
    assert failure is not None and failure.get("message") == "bad\\x00byte"


# --------------------------------------------------------------------------------------------
# Judge tokens (apart from the agent's)
# --------------------------------------------------------------------------------------------


def _judged(report: TestReport) -> TestReport:
    """The report with a judged metric on the single-turn case, its judge spending 52."""
    from holodeck_lsp.schema.results import MetricResult

    judged = report.model_copy(deep=True)
    judged.results[0].metric_results.append(
        MetricResult(
            metric_name="Direct",
            kind="geval",
            score=0.9,
            threshold=0.5,
            passed=True,
            reasoning="Plain.",
            model_used="openai:gpt-4o",
            judge_tokens=usage(40, 12),
        )
    )
    return judged


def test_markdown_and_junit_show_judge_tokens_apart(report: TestReport) -> None:
    judged = _judged(report)
    line = markdown.render(judged).splitlines()[2]
    assert "355 tokens" in line and "52 judge tokens" in line
    assert "judge tokens" not in markdown.render(report)
    root = ET.fromstring(junit.render(judged))
    first = root.findall("testsuite")[0]
    properties = {p.get("name"): p.get("value") for p in first.findall("properties/property")}
    assert properties == {"agent_tokens": str(judged.results[0].token_usage.total_tokens),  # type: ignore[union-attr]
                          "judge_tokens": "52"}  # fmt: skip
    assert root.findall("testsuite")[1].find("properties") is None


# --------------------------------------------------------------------------------------------
# Cost at the price list
# --------------------------------------------------------------------------------------------


def test_markdown_and_junit_show_the_cost_only_when_every_case_is_priced(
    report: TestReport,
) -> None:
    priced = report.model_copy(deep=True)
    for n, result in enumerate(priced.results):
        result.cost_usd = 0.25 * (n + 1)
    total = sum(0.25 * (n + 1) for n in range(len(priced.results)))
    line = markdown.render(priced).splitlines()[2]
    assert f"cost {total:.4f} USD" in line
    root = ET.fromstring(junit.render(priced))
    first = root.findall("testsuite")[0]
    assert {p.get("name"): p.get("value") for p in first.findall("properties/property")} == {
        "cost_usd": "0.250000"
    }
    # One case without a price (its model has none): no run total, that case no property.
    priced.results[1].cost_usd = None
    assert "cost " not in markdown.render(priced).splitlines()[2]
    second = ET.fromstring(junit.render(priced)).findall("testsuite")[1]
    assert second.find("properties") is None
    assert "cost " not in markdown.render(report).splitlines()[2]
