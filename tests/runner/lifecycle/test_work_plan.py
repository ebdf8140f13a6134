"""The work plan (runner/execution/work_plan.py): how many case sessions a run has, each
session's key, the order the executor starts them and the report lists them, and what a
resumed run has left."""

from __future__ import annotations

from holodeck_lsp.runner.execution.work_plan import WorkPlan
from holodeck_lsp.runner.selection import PlannedCase
from holodeck_lsp.schema.test_case import TestCase


def _planned(*names: str) -> list[PlannedCase]:
    return [
        PlannedCase(index, TestCase(name=name, input="q", ground_truth="a"))
        for index, name in enumerate(names)
    ]


def test_a_plain_run_has_one_session_a_case_keyed_by_index_alone() -> None:
    work = WorkPlan.of(_planned("a", "b", "c"))
    assert work.sessions == 3 and not work.matrix
    assert [item.key for item in work.items()] == [(index, None, None) for index in range(3)]


def test_one_model_named_is_not_a_matrix() -> None:
    """`--model x` once runs the agent on x: the keys are a plain run's (its journal and a
    resume agree whatever the model is)."""
    work = WorkPlan.of(_planned("a"), ["openai:gpt-4o"])
    assert work.sessions == 1
    assert [item.key for item in work.items()] == [(0, None, None)]


def test_sessions_are_cases_times_models_times_repeats() -> None:
    work = WorkPlan.of(_planned("a", "b"), ["m1", "m2", "m3"], repeat=4)
    assert work.sessions == 2 * 3 * 4
    assert len(work.items()) == len(set(item.key for item in work.items())) == 24


def test_the_executor_starts_case_major_and_the_report_lists_model_major() -> None:
    work = WorkPlan.of(_planned("a", "b"), ["m1", "m2"], repeat=2)
    assert [item.key for item in work.items()][:5] == [
        (0, "m1", 1),
        (0, "m2", 1),
        (0, "m1", 2),
        (0, "m2", 2),
        (1, "m1", 1),
    ]
    assert [item.key for item in work.in_report_order()][:5] == [
        (0, "m1", 1),
        (1, "m1", 1),
        (0, "m1", 2),
        (1, "m1", 2),
        (0, "m2", 1),
    ]


def test_what_is_left_skips_the_finished_sessions() -> None:
    work = WorkPlan.of(_planned("a", "b"), repeat=2)
    left = work.left({(0, None, 1): object(), (1, None, 2): object()})
    assert [(item.key, item.case.case.name) for item in left] == [
        ((0, None, 2), "a"),
        ((1, None, 1), "b"),
    ]


def test_a_repeat_of_zero_is_one() -> None:
    assert WorkPlan.of(_planned("a"), repeat=0).sessions == 1
