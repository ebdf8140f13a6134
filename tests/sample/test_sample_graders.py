"""graders.turn_program_equivalence on hand-built turns: the contract in its docstring, one
behaviour per test. (Named test_sample_graders: tests/config has a test_graders module.)"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from holodeck_lsp.engine.code_graders import GraderContext, GraderResult
from holodeck_lsp.schema.results import ToolInvocation
from tests.sample.sample_support import sample_graders

CHANGE = "subtract(60.94, 25.14)"
PERCENT = "subtract(60.94, 25.14), divide(#0, 25.14)"


def call(
    name: str, a: object, b: object, result: object = None, error: str | None = None
) -> ToolInvocation:
    return ToolInvocation(name=name, args={"a": a, "b": b}, result=result, error=error)


def lookup(row: str, column: str, result: object) -> ToolInvocation:
    args = {"document_id": "Single_MRO/2007/page_134.pdf-1", "row": row, "column": column}
    return ToolInvocation(name="tools-lookup", args=args, result=result)


def grade(program: str | None, *calls: ToolInvocation, **config: Any) -> GraderResult:
    turn_config: Mapping[str, Any] = (
        config if program is None else {"turn_program": program, **config}
    )
    context = GraderContext(
        turn_input="question",
        agent_response="answer",
        ground_truth=None,
        tool_invocations=calls,
        retrieval_context=None,
        turn_index=0,
        test_case_name="case",
        turn_config=turn_config,
    )
    result: GraderResult = sample_graders().turn_program_equivalence(context)
    return result


def statuses(result: GraderResult) -> list[str]:
    assert result.details is not None
    return [step["status"] for step in result.details["steps"]]


# -- every step done -------------------------------------------------------------------------


def test_every_step_called_scores_1_with_each_call_named() -> None:
    result = grade(
        PERCENT,
        lookup("weighted average exercise price per share", "2007", 60.94),
        call("tools-subtract", 60.94, 25.14, 35.8),
        call("tools-divide", 35.8, 25.14, 1.42403),
    )
    assert result.score == 1.0 and result.passed is None  # the metric's threshold decides
    assert result.details is not None
    assert result.details["program"] == PERCENT
    assert result.details["steps"] == [
        {
            "step": 0,
            "program": "subtract(60.94, 25.14)",
            "expected": "subtract(60.94, 25.14) = 35.8",
            "status": "called",
            "call": "subtract(a=60.94, b=25.14)",
        },
        {
            "step": 1,
            "program": "divide(#0, 25.14)",
            "expected": "divide(35.8, 25.14) = 1.42403",
            "status": "called",
            "call": "divide(a=35.8, b=25.14)",
        },
    ]
    assert "first_difference" not in result.details
    assert result.reason == f"all 2 steps of {PERCENT} matched"


def test_a_step_from_an_earlier_turn_counts_as_carried() -> None:
    """The previous turn computed the change; this turn only divides it."""
    result = grade(PERCENT, call("tools-divide", 35.8, 25.14, 1.42403))
    assert result.score == 1.0
    assert statuses(result) == ["carried", "called"]
    assert result.reason is not None and "1 carried from an earlier turn" in result.reason


def test_a_step_nothing_uses_is_not_carried() -> None:
    """Carrying needs a later step that used the value; a lone subtract is simply missing."""
    result = grade(CHANGE)
    assert result.score == 0.0
    assert statuses(result) == ["missing"]
    assert result.details is not None
    assert result.details["first_difference"] == (
        "step 0 subtract(60.94, 25.14) = 35.8: the turn made no tool calls"
    )


# -- what counts as the same call ------------------------------------------------------------


@pytest.mark.parametrize("name", ["divide", "tools-divide", "finance-tools-divide"])
def test_a_backends_tool_prefix_is_ignored(name: str) -> None:
    assert grade("divide(3.8, 35.1)", call(name, 3.8, 35.1, 0.10826)).score == 1.0


def test_the_claude_backends_tool_names_match_too() -> None:
    # Claude reports function tools as mcp__tools__<name>
    assert grade("divide(3.8, 35.1)", call("mcp__tools__divide", 3.8, 35.1, 0.10826)).score == 1.0
    assert grade("divide(3.8, 35.1)", call("tools_multiply", 3.8, 35.1, 133.38)).score == 0.0


def test_a_call_that_raised_computed_nothing() -> None:
    failed = call("tools-divide", 3.8, 35.1, error="boom")
    assert grade("divide(3.8, 35.1)", failed).score == 0.0
    assert grade("divide(3.8, 35.1)", failed, call("tools-divide", 3.8, 35.1, 0.10826)).score == 1


@pytest.mark.parametrize(
    ("program", "a", "b", "score"),
    [
        ("add(189, 68)", 68, 189, 1.0),
        ("multiply(0.5, 8)", 8, 0.5, 1.0),
        ("subtract(60.94, 25.14)", 25.14, 60.94, 0.0),
        ("divide(3.8, 35.1)", 35.1, 3.8, 0.0),
    ],
    ids=["add", "multiply", "subtract", "divide"],
)
def test_only_add_and_multiply_take_their_operands_in_either_order(
    program: str, a: float, b: float, score: float
) -> None:
    operation = program.split("(")[0]
    assert grade(program, call(f"tools-{operation}", a, b)).score == score


def test_operands_may_be_numbers_written_as_text() -> None:
    assert grade(CHANGE, call("tools-subtract", "60.94", "$25.14", "35.8")).score == 1.0
    assert grade(CHANGE, call("tools-subtract", "60.94", "n/a")).score == 0.0


def test_operands_agree_within_half_a_percent_unless_the_turn_says_otherwise() -> None:
    program = "subtract(60.94, 25.14), divide(#0, 25.14), multiply(#1, const_100)"
    rounded = call("tools-multiply", 1.424, 100)  # 1.42403 rounded: 0.002% off
    assert grade(program, rounded).score == 1.0
    assert grade(program, call("tools-multiply", 1.43, 100)).score == 1.0  # 0.42% off
    assert grade(program, call("tools-multiply", 1.44, 100)).score == 0.0  # 1.1% off
    assert grade(program, rounded, operand_tolerance=0.00001).score == 0.0
    assert grade(program, call("tools-multiply", 1.44, 100), operand_tolerance=0.02).score == 1.0


def test_each_call_matches_one_step_only() -> None:
    result = grade("add(1, 2), add(1, 2)", call("tools-add", 1, 2, 3))
    assert result.score == 0.5
    assert statuses(result) == ["called", "missing"]


# -- #N: the program's value or the agent's own ----------------------------------------------


def test_a_reference_accepts_the_agents_own_result_of_that_step() -> None:
    """100.3 passes for 100.2 (0.1% off), but the difference it gives, 0.3, is 50% off the
    program's 0.2: the next step is still right if it uses the agent's own 0.3."""
    program = "subtract(100.2, 100), divide(#0, 100)"
    own = grade(
        program,
        call("tools-subtract", 100.3, 100, 0.3),
        call("tools-divide", 0.3, 100, 0.003),
    )
    assert own.score == 1.0 and statuses(own) == ["called", "called"]
    # Without that subtract call, 0.3 is just a wrong operand.
    alone = grade(program, call("tools-divide", 0.3, 100, 0.003))
    assert alone.score == 0.0 and statuses(alone) == ["missing", "missing"]


def test_a_reference_accepts_the_programs_value_too() -> None:
    """The agent rounded its own earlier result (35.8 from 35.80000001) and passed it on."""
    result = grade(
        PERCENT,
        call("tools-subtract", 60.94, 25.14, 35.80000001),
        call("tools-divide", 35.8, 25.14, 1.42403),
    )
    assert result.score == 1.0


def test_a_perturbed_operand_costs_its_step_and_names_what_was_called() -> None:
    result = grade(
        PERCENT,
        call("tools-subtract", 60.94, 25.14, 35.8),
        call("tools-divide", 35.8, 27.65, 1.2948),
    )
    assert result.score == 0.5
    assert statuses(result) == ["called", "missing"]
    assert result.details is not None
    difference = result.details["first_difference"]
    assert difference.startswith("step 1 divide(#0, 25.14)")
    assert "divide(35.8, 25.14) = 1.42403" in difference
    assert difference.endswith("the turn's divide calls were divide(a=35.8, b=27.65)")
    assert result.reason == f"1 of 2 steps matched; first difference: {difference}"


def test_the_first_difference_lists_the_turns_calls_when_the_operation_is_missing() -> None:
    result = grade(CHANGE, lookup("weighted average exercise price per share", "2007", 60.94))
    assert result.details is not None
    assert result.details["first_difference"] == (
        "step 0 subtract(60.94, 25.14) = 35.8: no subtract call; the turn called "
        "tools-lookup(document_id=Single_MRO/2007/page_134.pdf-1, "
        "row=weighted average exercise price per share, column=2007)"
    )


# -- nothing to compare, or nothing readable -------------------------------------------------


def test_a_bare_value_program_has_nothing_to_compare() -> None:
    result = grade("60.94")
    assert result.score == 1.0 and result.passed is None
    assert result.details == {"program": "60.94", "steps": []}


@pytest.mark.parametrize("config", [{}, {"turn_program": ""}, {"turn_program": 3}])
def test_a_turn_without_a_program_scores_1(config: dict[str, Any]) -> None:
    result = grade(None, **config)
    assert result.score == 1.0
    assert result.reason is not None and "no turn_config.turn_program" in result.reason


@pytest.mark.parametrize(
    ("program", "said"),
    [
        ("subtract(60.94)", "subtract takes two operands"),
        ("average(1, 2)", "unknown operation 'average'"),
        ("divide(#1, 2)", "not an earlier step"),
        ("divide(5, 0)", "division by zero"),
        ("sixty", "is not a number"),
    ],
)
def test_an_unreadable_program_fails_the_turn(program: str, said: str) -> None:
    result = grade(program, call("tools-divide", 5, 0))
    assert (result.score, result.passed) == (0.0, False)
    assert result.reason is not None
    assert result.reason.startswith(f"turn_program {program!r}: ")
    assert said in result.reason
