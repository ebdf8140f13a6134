"""Replaying the committed cassette (a live run against the oracle with 20% of turns wrong on
purpose, seed 1): the run fails exactly on the turns the oracle planned to get wrong, and
each failure says what differed."""

from __future__ import annotations

import re
from typing import Any

import pytest

from holodeck_lsp.cli import main
from holodeck_lsp.schema.results import TestReport, TurnResult
from tests.sample.sample_support import (
    CASSETTE_MISTAKES,
    CASSETTE_SEED,
    GEVAL_METRIC,
    GRADER_METRIC,
    NUMERIC_METRIC,
    committed_subset,
    convfinqa,
    copy_sample,
    grader_imports_isolated,
    has_steps,
    metric,
    oracle_server,
    program_of,
    read_report,
    turns_of,
)


@pytest.fixture(scope="module")
def replay(tmp_path_factory: pytest.TempPathFactory) -> tuple[int, TestReport]:
    """One replay for the whole module: (exit status, report)."""
    folder = tmp_path_factory.mktemp("replay")
    sample, out = copy_sample(folder), folder / "report.json"  # the run is stored in the copy
    with grader_imports_isolated():
        status = main(
            ["run", str(sample), "--replay", str(sample / "cassettes" / "oracle.json"),
             "--report-json", str(out), "--quiet"]
        )  # fmt: skip
    return status, read_report(out)


@pytest.fixture(scope="module")
def planned_wrong() -> dict[tuple[str, int], Any]:
    """The oracle's plan for the cassette's settings: (case, turn) -> TurnPlan, wrong ones."""
    plans = oracle_server().build_plans(committed_subset(), CASSETTE_MISTAKES, CASSETTE_SEED)
    return {(p.case, p.turn): p for turns in plans.values() for p in turns if p.mistake}


def test_the_replay_fails_and_grades_every_turn(replay: tuple[int, TestReport]) -> None:
    status, report = replay
    assert status == 1
    subset = committed_subset()
    names = [d["test_case"]["name"] for d in subset["dialogues"]]
    assert [case.test_name for case in report.results] == names
    assert report.summary.total_tests == 10 and report.summary.total_turns == 34
    assert report.environment["mode"] == "replay"
    for case, dialogue in zip(report.results, subset["dialogues"], strict=True):
        questions = dialogue["dialogue"]["conv_questions"]
        assert case.turns is not None
        assert [t.turn_index for t in case.turns] == list(range(len(questions)))
        assert [t.input for t in case.turns] == questions
        for turn in case.turns:
            assert not turn.skipped and not turn.errors, (case.test_name, turn.turn_index)
            assert turn.response
            names = [m.metric_name for m in turn.metric_results]
            assert names == [NUMERIC_METRIC, GRADER_METRIC, GEVAL_METRIC]
            assert all(m.passed is not None and m.error is None for m in turn.metric_results)
            # The judged metric is graded from the recording: the answers are bare numbers.
            judged = turn.metric_results[2]
            assert judged.passed is True and judged.model_used == "ollama:qwen2.5:7b"
            assert judged.reasoning and "bare number" in judged.reasoning


def test_the_failing_turns_are_exactly_the_planned_mistakes(
    replay: tuple[int, TestReport], planned_wrong: dict[tuple[str, int], Any]
) -> None:
    _, report = replay
    failing = {(case, turn.turn_index) for case, turn in turns_of(report) if not turn.passed}
    assert len(planned_wrong) == 7
    assert failing == set(planned_wrong)
    assert report.summary.passed_turns == 34 - 7


def perturbed_arg(plan: Any, program: str) -> tuple[str, str, object] | None:
    """(tool, arg, value the oracle sent) of the planned slip; None when only the answer was
    off (a figure read from the text 10% too high)."""
    if plan.mistake.startswith("looked up column"):
        [call] = plan.calls
        return "lookup", "column", call.args["column"]
    match = re.match(r"step (\d+) ", plan.mistake)
    if match is None:
        return None
    index = int(match.group(1))
    parsed = convfinqa().parse_program(program)
    step = parsed.steps[index]
    values = parsed.values()
    gold = [convfinqa().resolve(operand, values) for operand in step.operands]
    call = plan.calls[index]
    for name, value in zip(("a", "b"), gold, strict=True):
        if not convfinqa().close(call.args[name], value):
            return step.operation, name, call.args[name]
    raise AssertionError(f"the plan's call {call} matches {step.text}")


def numbers_compared(reasoning: str) -> tuple[float, float]:
    match = re.match(r"\|(\S+) − (\S+)\|", reasoning)
    assert match is not None, reasoning
    return float(match.group(1)), float(match.group(2))


def test_each_failure_names_what_differed(
    replay: tuple[int, TestReport], planned_wrong: dict[tuple[str, int], Any]
) -> None:
    """The expected-tools check names the argument the oracle got wrong and the value it sent;
    the numeric metric names the wrong answer next to the dataset's."""
    _, report = replay
    subset = committed_subset()
    for case, turn in turns_of(report):
        plan = planned_wrong.get((case, turn.turn_index))
        if plan is None:
            continue
        where = (case, turn.turn_index, plan.mistake)
        numeric = metric(turn, NUMERIC_METRIC)
        assert numeric.passed is False and numeric.reasoning, where
        parse = convfinqa().parse_number
        assert numbers_compared(numeric.reasoning) == (
            pytest.approx(parse(plan.answer)),
            pytest.approx(parse(turn.ground_truth or "")),
        ), where

        slip = perturbed_arg(plan, program_of(turn, subset, case))
        if slip is None:
            assert not turn.tool_invocations, where
            continue
        tool, arg, value = slip
        shown = value if isinstance(value, str) else f"{value:g}"
        assert turn.tools_matched is False, where
        reasons = [
            d.unmatched_reason
            for d in turn.arg_match_details or []
            if d.tool == tool and d.unmatched_reason
        ]
        assert len(reasons) == 1, (where, turn.arg_match_details)
        assert f"arg '{arg}' mismatch" in reasons[0] and shown in reasons[0], (where, reasons)


def program_steps(turn: TurnResult, case: str) -> bool:
    return has_steps(program_of(turn, committed_subset(), case))


def test_the_code_grader_agrees_with_the_plan(
    replay: tuple[int, TestReport], planned_wrong: dict[tuple[str, int], Any]
) -> None:
    """1.0 on every right turn that computes something; below 1.0 on a turn whose calculation
    was perturbed, with the first step that differs."""
    _, report = replay
    checked_right = checked_wrong = 0
    for case, turn in turns_of(report):
        grader = metric(turn, GRADER_METRIC)
        plan = planned_wrong.get((case, turn.turn_index))
        if plan is None:
            assert grader.score == 1.0 and grader.passed, (case, turn.turn_index, grader)
            checked_right += program_steps(turn, case)
        elif plan.mistake.startswith("step "):
            step = plan.mistake.split(":", 1)[0]  # "step 1 divide(#0, 8)"
            assert grader.score < 1.0 and grader.passed is False, (case, turn.turn_index)
            assert grader.details is not None
            assert grader.details["first_difference"].startswith(step), grader.details
            checked_wrong += 1
        else:  # a value read wrongly: no calculation to compare
            assert not program_steps(turn, case)
            assert grader.score == 1.0
    assert checked_wrong == 4
    assert checked_right > 10
