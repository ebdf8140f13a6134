"""Grading whole cases: metric selection per turn, isolation between turns, skips, roll-up."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.engine.case_grading import grade_case
from holodeck_lsp.engine.code_graders import GraderContext, GraderResult
from holodeck_lsp.engine.turn_grading import TurnOutcome
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import ToolInvocation

AGENT = """\
name: grading
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "answer"}
tools:
  - {name: subtract, type: function, description: d, file: tools.py, function: subtract}
evaluations:
  metrics:
    - {type: standard, metric: numeric, absolute_tolerance: 0.01, accept_percent: true}
test_cases:
"""


def agent_of(cases: str, tmp_path: Path) -> Agent:
    (tmp_path / "tools.py").write_text("def subtract(a, b):\n    return a - b\n")
    # Grader modules only need to resolve at load time; the tests pass the callables in.
    (tmp_path / "graders.py").write_text("def always(ctx):\n    return True\n")
    (tmp_path / "g.py").write_text(
        "def picky(ctx):\n    return True\n\n\ndef f(ctx):\n    return 1\n"
    )
    result = load_agent_text(
        AGENT + cases, tmp_path / "agent.yaml", LoadOptions(home=tmp_path / "home", env={})
    )
    assert result.agent is not None, [d.message for d in result.diagnostics]
    return result.agent


def test_most_specific_metric_list_wins_and_flags_stay_on_their_turn(tmp_path: Path) -> None:
    agent = agent_of(
        """\
  - name: yes-no
    evaluations: [{metric: equality}]
    turns:
      - input: "is it up?"
        ground_truth: "Yes"
        evaluations: [{metric: equality, case_insensitive: true, strip_punctuation: true}]
      - input: "and now?"
        ground_truth: "Yes"
      - input: "how much?"
        ground_truth: "25587"
""",
        tmp_path,
    )
    case = agent.test_cases[0]  # type: ignore[index]
    outcomes = [TurnOutcome(response="yes."), TurnOutcome(response="yes."), TurnOutcome("25587")]
    result = grade_case(agent, case, 0, outcomes)
    turns = result.turns or []
    assert [t.metric_results[0].metric_name for t in turns] == ["equality"] * 3
    assert turns[0].passed  # its own flags
    assert not turns[1].passed  # the case's strict equality: the flags did not leak
    assert turns[2].passed
    assert not result.passed


def test_agent_metrics_apply_when_case_and_turn_have_none(tmp_path: Path) -> None:
    agent = agent_of(
        """\
  - turns:
      - {input: "change?", ground_truth: "14.1%"}
""",
        tmp_path,
    )
    result = grade_case(agent, agent.test_cases[0], 0, [TurnOutcome(response="0.141")])  # type: ignore[index]
    assert result.passed
    assert result.metric_results[0].metric_name == "numeric"


def test_ground_truth_metrics_skip_turns_without_one_but_code_graders_run(tmp_path: Path) -> None:
    agent = agent_of(
        """\
  - evaluations:
      - {metric: numeric}
      - {type: code, grader: "graders:always"}
    turns:
      - {input: "hello"}
""",
        tmp_path,
    )
    calls: list[GraderContext] = []

    def always(context: GraderContext) -> GraderResult:
        calls.append(context)
        return GraderResult(score=1.0, passed=True)

    result = grade_case(
        agent,
        agent.test_cases[0],  # type: ignore[index]
        0,
        [TurnOutcome(response="hi")],
        graders={"graders:always": always},
    )
    numeric, code = result.turns[0].metric_results  # type: ignore[index]
    assert numeric.skipped and numeric.passed is None
    assert code.passed and len(calls) == 1
    assert calls[0].turn_index == 0 and calls[0].test_case_name is None
    assert result.passed
    assert [m.metric_name for m in result.metric_results] == ["always"]


def test_disabled_metrics_are_skipped(tmp_path: Path) -> None:
    agent = agent_of(
        """\
  - input: "x"
    ground_truth: "1"
    evaluations: [{metric: numeric, enabled: false}, {type: code, grader: "g:f", enabled: false}]
""",
        tmp_path,
    )
    result = grade_case(agent, agent.test_cases[0], 0, [TurnOutcome(response="2")])  # type: ignore[index]
    assert result.passed
    assert result.turns is None
    assert result.metric_results and all(m.skipped for m in result.metric_results)


def test_an_empty_response_with_assertions_fails(tmp_path: Path) -> None:
    agent = agent_of("  - {input: x, ground_truth: '1'}\n", tmp_path)
    result = grade_case(agent, agent.test_cases[0], 0, [TurnOutcome(response="")])  # type: ignore[index]
    assert not result.passed
    assert "the agent gave an empty response" in result.errors


def test_a_raising_grader_fails_only_its_turn(tmp_path: Path) -> None:
    agent = agent_of(
        """\
  - name: sc009
    evaluations: [{type: code, grader: "g:picky"}]
    turns:
      - {input: "one"}
      - {input: "two"}
      - {input: "three"}
""",
        tmp_path,
    )

    def picky(context: GraderContext) -> bool:
        if context.turn_index == 1:
            raise ValueError("cannot grade turn two")
        return True

    outcomes = [TurnOutcome(response=r) for r in ("1", "2", "3")]
    result = grade_case(agent, agent.test_cases[0], 0, outcomes, graders={"g:picky": picky})  # type: ignore[index]
    assert [t.passed for t in result.turns or []] == [True, False, True]
    failed = (result.turns or [])[1].metric_results[0]
    assert failed.error is not None and "ValueError: cannot grade turn two" in failed.error
    assert not result.passed


def test_tool_assertions_and_missing_outcomes(tmp_path: Path) -> None:
    agent = agent_of(
        """\
  - name: tools
    turns:
      - input: "difference?"
        expected_tools: [{name: subtract, args: {a: {fuzzy: "206588"}, b: 181001}}]
      - input: "never sent"
""",
        tmp_path,
    )
    call = ToolInvocation(name="mcp__tools__subtract", args={"a": "206,588", "b": 181001.0})
    result = grade_case(
        agent,
        agent.test_cases[0],  # type: ignore[index]
        0,
        [TurnOutcome(response="25587", tool_invocations=(call,))],
    )
    first, second = result.turns or []
    assert first.tools_matched and first.passed
    assert second.skipped and not second.passed
    assert result.tools_matched is True
    assert not result.passed


@pytest.mark.parametrize("response", ["25,587", "25587.0"])
def test_numeric_rolls_up_as_a_mean_over_turns(tmp_path: Path, response: str) -> None:
    agent = agent_of(
        """\
  - turns:
      - {input: "a", ground_truth: "25587"}
      - {input: "b", ground_truth: "1"}
""",
        tmp_path,
    )
    outcomes = [TurnOutcome(response=response), TurnOutcome(response="1")]
    result = grade_case(agent, agent.test_cases[0], 0, outcomes)  # type: ignore[index]
    (numeric,) = result.metric_results
    expected_first = 1.0 if response == "25587.0" else 0.0
    assert numeric.score == pytest.approx((expected_first + 1.0) / 2)


def test_a_legacy_case_without_ground_truth_fails_its_ground_truth_metric(
    tmp_path: Path,
) -> None:
    # FR-005: legacy single-turn cases keep upstream's behaviour, which runs the metric and
    # fails it; a multi-turn turn without ground_truth skips it (today's rule, upstream's too).
    agent = agent_of(
        """\
  - name: legacy
    input: "how much?"
  - name: multi
    turns:
      - input: "how much?"
""",
        tmp_path,
    )
    outcome = TurnOutcome(response="25587")
    legacy = grade_case(agent, agent.test_cases[0], 0, [outcome])
    multi = grade_case(agent, agent.test_cases[1], 1, [outcome])

    assert not legacy.passed
    (metric,) = legacy.metric_results
    assert metric.passed is False and not metric.skipped
    assert (metric.error or "").startswith("no ground_truth on this test case: numeric")
    assert multi.passed and multi.turns is not None
    assert multi.turns[0].metric_results[0].skipped


def test_fail_on_error_in_grade_case_skips_the_turns_after_the_raise(tmp_path: Path) -> None:
    agent = agent_of(
        """\
  - name: stops
    evaluations: [{type: code, grader: "g:picky", fail_on_error: true}]
    turns:
      - input: "a"
      - input: "b"
      - input: "c"
""",
        tmp_path,
    )

    def picky(ctx: GraderContext) -> bool:
        if ctx.turn_index == 0:
            raise ValueError("no")
        return True

    outcomes = [TurnOutcome(response="x")] * 3
    result = grade_case(agent, agent.test_cases[0], 0, outcomes, graders={"g:picky": picky})
    assert result.turns is not None
    assert [turn.skipped for turn in result.turns] == [False, True, True]
    assert "fail_on_error: true" in result.turns[1].errors[0]
