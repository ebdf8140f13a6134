"""A turn stopped at the tool-round limit, and calls that could not run as sent, as grading
and the reports see them (engine/tool_loop.py, engine/tool_assertions.py; docs/running.md,
"Tool loop")."""

from __future__ import annotations

from holodeck_lsp.engine.code_graders.frozen import freeze
from holodeck_lsp.engine.rollup import single_turn_result
from holodeck_lsp.engine.tool_assertions import check_expected_tools
from holodeck_lsp.engine.tool_loop import limit_reason, limit_summary, refused_call
from holodeck_lsp.engine.turn_grading import TurnOutcome, TurnSpec, grade_turn
from holodeck_lsp.reports.run import markdown
from holodeck_lsp.schema.results import ToolInvocation, TurnResult
from holodeck_lsp.schema.test_case import ExpectedTool

NOT_JSON = ToolInvocation(
    name="tools-lookup",
    raw_arguments='{"id": 9',
    call_problem="invalid_json",
    error="The tool call arguments are malformed.",
)
UNKNOWN = ToolInvocation(
    name="ls<|channel|>commentary",
    args={"path": "."},
    raw_arguments='{"path": "."}',
    call_problem="unknown_tool",
    error="not part of the provided tools",
)


def test_a_turn_stopped_at_the_limit_fails_with_its_reason_even_when_all_else_passes() -> None:
    spec = TurnSpec(index=0, input="touch files", expected_tools=("touch",))
    calls = tuple(ToolInvocation(name="tools-touch", result="ok") for _ in range(20))
    stopped = grade_turn(
        spec,
        TurnOutcome(response="Touched 20 files.", tool_invocations=calls, tool_limit_reached=20),
        [],
        case_name="c",
    )
    assert stopped.tools_matched is True and stopped.passed is False
    assert stopped.errors == ["stopped after 20 tool rounds: the limit"]
    assert stopped.tool_limit_reached == 20
    finished = grade_turn(
        spec, TurnOutcome(response="Done.", tool_invocations=calls), [], case_name="c"
    )
    assert finished.passed and finished.tool_limit_reached is None
    # A single-turn case keeps it, so a transcript of the case (editor re-grade) does too.
    case = single_turn_result("c", 0, stopped)
    assert case.tool_limit_reached == 20
    assert case.turn_results()[0].tool_limit_reached == 20


def test_the_summary_counts_the_stopped_turns_and_says_what_to_do() -> None:
    def turn(limit: int | None) -> TurnResult:
        return TurnResult(turn_index=0, input="x", tool_limit_reached=limit)

    assert limit_summary([turn(None)]) is None
    assert limit_summary([turn(20), turn(None), turn(20)]) == (
        "2 turns stopped at the tool-round limit (20): raise --max-tool-rounds"
    )
    assert limit_summary([turn(3)]) == (
        "1 turn stopped at the tool-round limit (3): raise --max-tool-rounds"
    )
    assert limit_reason(7) == "stopped after 7 tool rounds: the limit"


def test_a_failed_expectation_says_which_problem_happened_and_what_was_sent() -> None:
    expected = (ExpectedTool(name="lookup", args={"id": 9}),)
    matched, details = check_expected_tools(expected, [NOT_JSON])
    assert matched is False and details is not None
    assert details[0].unmatched_reason == (
        "arg 'id' missing; the call could not run: its arguments are not a JSON object "
        "(sent '{\"id\": 9')"
    )
    _, details = check_expected_tools(("lookup",), [UNKNOWN])
    assert details is not None and details[0].unmatched_reason == (
        "tool 'lookup' was not called (calls this turn: ls<|channel|>commentary (unknown tool))"
    )
    assert refused_call(ToolInvocation(name="t", error="ZeroDivisionError")) == ""


def test_graders_see_the_text_sent_and_the_problem() -> None:
    frozen = freeze(NOT_JSON)
    assert (frozen.raw_arguments, frozen.call_problem) == ('{"id": 9', "invalid_json")


def test_the_markdown_report_shows_a_refused_calls_problem() -> None:
    from holodeck_lsp.engine.rollup import multi_turn_result
    from holodeck_lsp.schema.results import ReportSummary, TestReport

    turn = TurnResult(
        turn_index=0, input="q", response="a", tool_invocations=[UNKNOWN], tool_limit_reached=5,
        errors=[limit_reason(5)],
    )  # fmt: skip
    result = multi_turn_result("c", 0, [turn])
    report = TestReport(
        agent_name="a",
        agent_config_path="agent.yaml",
        results=[result],
        summary=ReportSummary(total_tests=1, passed=0, failed=1, pass_rate=0.0),
        timestamp="t",
        holodeck_version="v",
    )
    text = markdown.render(report)
    assert 'the call could not run: no tool has that name (sent \'{"path": "."}\')' in text
    assert "1 turn stopped at the tool-round limit (5): raise --max-tool-rounds" in text
    assert "stopped after 5 tool rounds: the limit" in text
