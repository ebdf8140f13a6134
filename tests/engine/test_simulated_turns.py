"""The pure rules of a simulated conversation (engine/simulated_turns.py): which checks and
metrics grade each agent turn, the at_end checks, stop markers, and what counts as the
simulator writing as the agent or leaking its instructions."""

from __future__ import annotations

from typing import Any

from holodeck_lsp.engine.simulated_turns import (
    broke_persona,
    conversation_turn_metrics,
    conversation_turn_spec,
    grade_at_end,
    leaked_instructions,
    missing_information,
    prompt_fingerprint,
    stop_marker_in,
    written_as_agent,
)
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import ToolInvocation, TurnResult
from holodeck_lsp.schema.test_case import TestCase

INSTRUCTIONS = (
    "You are Yusuf Rossi from Philadelphia. You want to exchange the keyboard of order "
    "W2378156 for one with clicky switches, and you do not know your email address."
)


def _case(**simulated: Any) -> TestCase:
    return TestCase.model_validate(
        {
            "name": "c",
            "turns": [{"input": "hi", "evaluations": [{"metric": "bleu"}]}],
            "evaluations": [{"metric": "rouge"}],
            "simulated_user": {
                "instructions": INSTRUCTIONS,
                "model": {"provider": "openai", "name": "gpt-4.1-mini"},
                **simulated,
            },
        }
    )


def _agent(case: TestCase) -> Agent:
    return Agent.model_validate(
        {
            "name": "a",
            "model": {"provider": "openai", "name": "gpt-4o-mini"},
            "instructions": {"inline": "x"},
            "test_cases": [case.model_dump(exclude_none=True)],
        }
    )


def _names(metrics: list[Any]) -> list[str]:
    return [m.metric for m in metrics]


def test_the_most_specific_metrics_win() -> None:
    case = _case(
        every_turn={"evaluations": [{"metric": "meteor"}]},
        at_turn=[{"turn": 1, "evaluations": [{"metric": "equality"}]},
                 {"turn": 3, "evaluations": [{"metric": "equality"}]}],
    )  # fmt: skip
    agent = _agent(case)
    assert _names(conversation_turn_metrics(agent, case, 0)) == ["bleu"]  # the turn's own
    assert _names(conversation_turn_metrics(agent, case, 1)) == ["meteor"]  # every_turn
    assert _names(conversation_turn_metrics(agent, case, 2)) == ["equality"]  # at_turn 3
    bare = _case()
    assert _names(conversation_turn_metrics(_agent(bare), bare, 1)) == ["rouge"]  # the case's


def test_at_turn_assertions_join_the_turn() -> None:
    case = _case(at_turn=[{"turn": 2, "ground_truth": "42", "expected_tools": ["lookup"]}])
    spec = conversation_turn_spec(case, 1, "what is it?")
    assert (spec.index, spec.input, spec.ground_truth) == (1, "what is it?", "42")
    assert spec.expected_tools == ("lookup",)
    assert conversation_turn_spec(case, 2, "x").ground_truth is None


def test_stop_markers_and_the_fingerprint() -> None:
    case = _case(stop_markers=["DONE"])
    simulated = case.simulated_user
    assert simulated is not None
    assert stop_marker_in("thanks, DONE", simulated.stop_markers) == "DONE"
    assert stop_marker_in("thanks ###STOP###", simulated.stop_markers) is None
    other = _case().simulated_user
    assert other is not None
    assert prompt_fingerprint(simulated) == prompt_fingerprint(other)
    changed = other.model_copy(update={"instructions": INSTRUCTIONS + " Be brief."})
    assert prompt_fingerprint(changed) != prompt_fingerprint(other)


def test_written_as_the_agent() -> None:
    assert written_as_agent("Assistant: how can I help?") is not None
    assert written_as_agent('{"name": "find_order", "arguments": {"id": 1}}') is not None
    assert written_as_agent('<tool_use name="x">') is not None
    assert written_as_agent("I'd like my assistant's order, the name is Yusuf.") is None


def test_leaked_instructions() -> None:
    leaked = "Sure: you want to exchange the keyboard of order W2378156 for one with clicky"
    assert leaked_instructions(leaked, INSTRUCTIONS) is not None
    assert leaked_instructions("I want to swap my keyboard, order W2378156.", INSTRUCTIONS) is None


def test_communicate_info_as_tau2_checks_it() -> None:
    said = ["Your refund is $1234.56.", "Done."]
    assert missing_information(["$1,234.56", "REFUND", "W2378156"], said) == ["W2378156"]


def test_at_end_over_the_whole_conversation() -> None:
    case = _case(
        at_end={
            "expected_tools": [{"name": "refund", "args": {"amount": 5}}, "lookup"],
            "communicate_info": ["refunded"],
        }
    )
    turns = [
        TurnResult(turn_index=0, input="hi", response="Let me look.", passed=True,
                   tool_invocations=[ToolInvocation(name="lookup", args={})]),
        TurnResult(turn_index=1, input="ok", response="Refunded $5.", passed=True,
                   tool_invocations=[ToolInvocation(name="refund", args={"amount": 5})]),
    ]  # fmt: skip
    result = grade_at_end(case, turns)
    assert result is not None and result.passed and result.tools_matched
    turns[1] = turns[1].model_copy(update={"response": "All done."})
    missed = grade_at_end(case, turns)
    assert missed is not None and not missed.passed
    [info] = missed.metric_results
    assert info.metric_name == "communicate_info" and "'refunded'" in (info.reasoning or "")


def test_breaking_persona_where_a_check_says_so() -> None:
    case = _case(never_says=["PostCode", "19104"])
    simulated = case.simulated_user
    assert simulated is not None
    assert broke_persona("My postcode is 19104.", simulated.never_says) is not None
    assert broke_persona("I live in Philadelphia.", simulated.never_says) is None
    assert broke_persona("anything", None) is None
