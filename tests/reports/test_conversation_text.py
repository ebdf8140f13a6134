"""reports/run/conversation_text.py: a case of a run report as its conversation in Markdown
text — one case, two runs side by side, two models of one report, and 500 long turns fast."""

from __future__ import annotations

import time

import pytest

from holodeck_lsp.engine.rollup import summarize
from holodeck_lsp.reports.run.conversation_text import (
    DIFFERS,
    RESULT_CHARACTERS,
    NoSuchCase,
    render,
)
from holodeck_lsp.schema.results import (
    ArgMatchDetail,
    MetricResult,
    TestReport,
    TestResult,
    ToolInvocation,
    TurnResult,
)

LONG = "row " * 2_000  # 8,000 characters of tool result


def turn(
    index: int,
    *,
    passed: bool = True,
    response: str = "It is 42.",
    calls: list[ToolInvocation] | None = None,
    **fields: object,
) -> TurnResult:
    return TurnResult(
        turn_index=index,
        input=f"question {index}",
        response=response,
        ground_truth="42",
        tool_invocations=calls or [],
        tool_calls=[call.name for call in calls or []],
        passed=passed,
        **fields,  # type: ignore[arg-type]
    )


def report_of(*results: TestResult, models: list[str] | None = None) -> TestReport:
    return TestReport(
        agent_name="calc",
        agent_config_path="agent.yaml",
        results=list(results),
        summary=summarize(list(results)),
        timestamp="2026-12-06T10:00:00Z",
        holodeck_version="test",
        models=models or [],
    )


def case_of(
    turns: list[TurnResult], *, name: str = "sums", index: int = 0, **fields: object
) -> TestResult:
    return TestResult(
        test_name=name,
        test_index=index,
        turns=turns,
        passed=all(t.passed for t in turns),
        **fields,  # type: ignore[arg-type]
    )


def failing_turn() -> TurnResult:
    lookup = ToolInvocation(name="lookup", args={"year": 2006, "column": "B"}, result=LONG)
    broken = ToolInvocation(
        name="nope", args={}, error="no tool named 'nope'", call_problem="unknown_tool"
    )
    return turn(
        1,
        passed=False,
        response="It is 41.\n## not a heading",
        calls=[lookup, broken],
        tools_matched=False,
        arg_match_details=[
            ArgMatchDetail(tool="lookup", unmatched_reason="arg 'column' mismatch: expected 'A'")
        ],
        metric_results=[
            MetricResult(metric_name="numeric", score=0.0, threshold=1.0, passed=False)
        ],
    )


def test_a_case_reads_as_its_conversation() -> None:
    report = report_of(
        case_of([turn(0), failing_turn()]), case_of([turn(0)], name="other", index=1)
    )

    text = render(report, 0)
    lines = text.splitlines()

    assert lines[0] == "# sums (case #0) — calc"
    assert "**failed**: 1 of 2 turns passed" in lines
    assert lines.index("## Turn 0 · passed") < lines.index("## Turn 1 · failed")
    assert "**user:** question 1" in lines
    [lookup] = [line for line in lines if line.startswith("- tool `lookup`")]
    assert lookup.startswith('- tool `lookup` {"year":2006,"column":"B"} → row row')
    assert lookup.endswith(f"… ({len(LONG) - RESULT_CHARACTERS} more characters)")
    assert len(lookup) < RESULT_CHARACTERS + 100
    [nope] = [line for line in lines if line.startswith("- tool `nope`")]
    assert nope == "- tool `nope` {} — call problem: unknown_tool → error: no tool named 'nope'"
    # The agent's own "## " line stays inside its turn (indented), never a heading.
    assert "**agent:** It is 41." in lines and "    ## not a heading" in lines
    assert "**expected:** 42" in lines
    why = lines[lines.index("**why it failed:**") + 1 :]
    assert why[0] == "- tool 'lookup': arg 'column' mismatch: expected 'A'"
    assert why[1].startswith("- metric 'numeric' failed: score 0 < threshold 1")
    assert "other" not in text  # only the case asked for


def test_a_single_turn_case_is_turn_0_and_errors_say_why() -> None:
    single = TestResult(
        test_index=3,
        test_input="hi",
        agent_response=None,
        errors=["provider: 503 Service Unavailable"],
        errored=True,
    )
    text = render(report_of(single), 3)

    assert text.startswith("# #3 (case #3) — calc\n")
    assert "## Turn 0 · errored" in text
    assert "**agent:** (no answer)" in text
    assert "**why it errored:**\n- provider: 503 Service Unavailable" in text


def test_an_unknown_case_model_or_repeat_says_which_exist() -> None:
    report = report_of(case_of([turn(0)], model="openai:a"), models=["openai:a"])

    with pytest.raises(NoSuchCase, match=r"no case #4 .*its cases: #0"):
        render(report, 4)
    with pytest.raises(NoSuchCase, match=r"not run on model 'openai:b' \(it ran on: openai:a\)"):
        render(report, 0, model="openai:b")
    with pytest.raises(NoSuchCase, match=r"no repeat 2"):
        render(report, 0, repeat=2)


def test_two_runs_side_by_side_mark_the_turns_that_differ() -> None:
    base = report_of(case_of([turn(0), turn(1), turn(2)]))
    head = report_of(case_of([turn(0), failing_turn(), turn(2, response="It is 43.")]))

    text = render(head, 0, beside=("baseline", base))
    lines = text.splitlines()

    assert "**baseline**: passed, 3 of 3 turns passed" in lines
    assert f"**{DIFFERS}**: 2 of 3 turns differ (turns 1, 2) between this run and baseline" in lines
    turn1 = lines.index("## Turn 1 · this run: failed · baseline: passed")
    assert lines[turn1 + 2] == f"{DIFFERS}: verdict, answer, tool calls"
    turn2 = lines.index("## Turn 2 · this run: passed · baseline: passed")
    assert lines[turn2 + 2] == f"{DIFFERS}: answer"
    turn0 = lines.index("## Turn 0 · this run: passed · baseline: passed")
    assert lines[turn0 + 2] == "### this run"  # no differs line on an unchanged turn
    # Both sides under each turn, this run's first.
    sides = lines[turn1:turn2]
    assert sides.index("### this run") < sides.index("### baseline")
    assert sides[sides.index("### baseline") + 2] == "**user:** question 1"


def test_a_case_the_other_run_lacks_or_a_turn_it_lacks_is_said() -> None:
    head = report_of(case_of([turn(0), turn(1)]))
    shorter = report_of(case_of([turn(0)]))
    other_case = report_of(case_of([turn(0)], name="renamed"))

    text = render(head, 0, beside=("baseline", shorter))
    assert "## Turn 1 · this run: passed · baseline: absent" in text
    assert f"{DIFFERS}: turn present on one side only" in text
    assert "(no such turn in this run)" in text

    text = render(head, 0, beside=("baseline", other_case))
    assert "**baseline**: this case was not run there" in text
    assert f"**{DIFFERS}**: 2 of 2 turns differ" in text


def test_two_models_of_one_report_side_by_side() -> None:
    models = ["openai:a", "anthropic:b"]
    report = report_of(
        case_of([turn(0), turn(1)], model="openai:a"),
        case_of([turn(0), failing_turn()], model="anthropic:b"),
        models=models,
    )

    alone = render(report, 0)
    assert "model `openai:a`" in alone and "## Turn 1 · passed" in alone
    assert "## Turn 1 · failed" in render(report, 0, model="anthropic:b")

    text = render(report, 0, beside="anthropic:b")
    assert f"**{DIFFERS}**: 1 of 2 turns differ (turns 1) between openai:a and anthropic:b" in text
    assert "## Turn 1 · openai:a: passed · anthropic:b: failed" in text
    assert "### openai:a" in text and "### anthropic:b" in text


def test_beside_another_matrix_run_the_same_model_is_compared() -> None:
    models = ["openai:a", "anthropic:b"]
    head = report_of(
        case_of([turn(0)], model="openai:a"),
        case_of([turn(0, response="b now")], model="anthropic:b"),
        models=models,
    )
    base = report_of(
        case_of([turn(0)], model="openai:a"),
        case_of([turn(0, response="b before")], model="anthropic:b"),
        models=models[::-1],  # another first model there: still openai:a beside openai:a
    )

    assert f"**{DIFFERS}**: 0 of 1 turns differ" in render(head, 0, beside=("baseline", base))
    text = render(head, 0, model="anthropic:b", beside=("baseline", base))
    assert f"**{DIFFERS}**: 1 of 1 turns differ (turns 0)" in text
    assert "**agent:** b now" in text and "**agent:** b before" in text


def test_repeats_choose_a_session() -> None:
    first = case_of([turn(0)], repeat=1)
    second = case_of([turn(0, passed=False, response="no idea")], repeat=2)
    report = report_of(first, second).model_copy(update={"repeats": 2})

    assert "repeat 1 of 2" in render(report, 0)
    text = render(report, 0, repeat=2)
    assert "repeat 2 of 2" in text and "**agent:** no idea" in text


def test_five_hundred_long_turns_render_fast() -> None:
    calls = [ToolInvocation(name="fetch", args={"page": n}, result=LONG) for n in range(3)]
    turns = [turn(index, calls=calls, response="answer " * 200) for index in range(500)]
    other = [turn(index, calls=calls[:2], passed=index % 2 == 0) for index in range(500)]
    head, base = report_of(case_of(turns)), report_of(case_of(other))

    started = time.perf_counter()
    text = render(head, 0, beside=("baseline", base))
    took = time.perf_counter() - started

    assert text.count("\n## Turn ") == 500
    assert f"**{DIFFERS}**: 500 of 500 turns differ" in text
    assert len(text) < 500 * 2 * 3 * (RESULT_CHARACTERS + 200) + 500 * 3_000  # results cut
    assert took < 1.0, f"500 turns took {took:.2f} s"
