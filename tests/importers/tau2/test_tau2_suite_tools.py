"""An imported τ² suite's tools and grader, called in a case as holodeck-lsp calls them: each
case on its own fresh database, tool results as τ² returns them, and the at-end grader's
verdict on the DB, the env assertions and the actions (the parity test compares it with
τ²'s evaluator)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.runner.agent_code.case_scope import CaseScope, entered_case
from tests.importers.tau2.tau2_support import end_context, imported, run_calls, suite_module


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return imported(tmp_path_factory.mktemp("tau2-suite"))


def _reference(state: Any, case: str) -> list[tuple[str, dict[str, Any]]]:
    actions = state.task(case).evaluation_criteria.actions or []
    return [(action.name, dict(action.arguments)) for action in actions]


def test_a_tool_answers_as_tau2_does_and_each_case_has_its_own_database(folder: Path) -> None:
    tools = suite_module(folder, "tools_retail")
    with entered_case(CaseScope(name="retail_5", index=0)):
        found = tools.get_order_details(order_id="#W2378156")
        assert json.loads(found)["user_id"] == "yusuf_rossi_9620"
        missing = tools.get_order_details(order_id="#W0000000")
        assert missing == "Error: Order not found"
        changed = tools.modify_user_address(
            user_id="yusuf_rossi_9620", address1="1 Main St", address2="", city="Boston",
            state="MA", country="USA", zip="02101",
        )  # fmt: skip
        assert json.loads(changed)["address"]["city"] == "Boston"
        user = json.loads(tools.get_user_details(user_id="yusuf_rossi_9620"))
        assert user["address"]["city"] == "Boston"
    with entered_case(CaseScope(name="retail_0", index=1)):
        fresh = json.loads(tools.get_user_details(user_id="yusuf_rossi_9620"))
        assert fresh["address"]["city"] != "Boston"


def test_a_call_outside_any_case_says_how_to_make_one(folder: Path) -> None:
    tools = suite_module(folder, "tools_retail")
    with pytest.raises(RuntimeError, match="bound_case"):
        tools.get_user_details(user_id="yusuf_rossi_9620")


def test_the_reference_actions_pass_and_no_action_fails_the_db_check(folder: Path) -> None:
    tools = suite_module(folder, "tools_retail")
    grader = suite_module(folder, "tau2_grader")
    state = grader.tau2_state
    with entered_case(CaseScope(name="retail_0", index=0)):
        calls = run_calls(tools, _reference(state, "retail_0"))
        verdict = grader.tau2_reward(end_context("retail_0", calls))
    assert verdict.passed is True and verdict.score == 1.0
    assert verdict.details["reward_breakdown"] == {"DB": 1.0}
    assert verdict.details["checked_beside"] == ["NL_ASSERTION"]
    with entered_case(CaseScope(name="retail_0", index=1)):
        verdict = grader.tau2_reward(end_context("retail_0", []))
    assert verdict.passed is False
    assert verdict.reason == "τ² reward 0: the database differs from the reference actions' result"


def test_actions_and_env_assertions_count_where_the_basis_names_them(folder: Path) -> None:
    tools = suite_module(folder, "tools_mock")
    grader = suite_module(folder, "tau2_grader")
    state = grader.tau2_state
    case = "mock_create_task_1_with_env_assertions"  # basis DB, ENV_ASSERTION
    with entered_case(CaseScope(name=case, index=0)):
        verdict = grader.tau2_reward(end_context(case, []))
    assert verdict.passed is False
    assert verdict.details["reward_breakdown"] == {"DB": 0.0, "ENV_ASSERTION": 0.0}
    assert "env assertions unmet" in verdict.reason
    with entered_case(CaseScope(name=case, index=1)):
        calls = run_calls(tools, _reference(state, case))
        verdict = grader.tau2_reward(end_context(case, calls))
    assert verdict.passed is True, verdict.reason
    case = "mock_impossible_task_1"  # basis DB, ACTION; the reference action does not exist
    with entered_case(CaseScope(name=case, index=2)):
        verdict = grader.tau2_reward(end_context(case, []))
    assert verdict.details["reward_breakdown"] == {"DB": 1.0, "ACTION": 0.0}
    assert "reference actions not made" in verdict.reason


def test_backend_prefixes_are_taken_off_tool_names(folder: Path) -> None:
    grader = suite_module(folder, "tau2_grader")
    context = end_context("retail_0", [])
    assert grader.agent_calls(context) == []
    assert grader.tau2_state.bare_name("mcp__tools__get_user_details") == "get_user_details"
    assert grader.tau2_state.bare_name("tools-get_user_details") == "get_user_details"


def test_a_telecom_case_starts_from_its_tasks_initial_state(folder: Path) -> None:
    """Telecom's environment has the user's phone too (a user database), set by the task's
    initialization actions before the first call, as τ²'s orchestrator sets it."""
    tools = suite_module(folder, "tools_telecom")
    grader = suite_module(folder, "tau2_grader")
    state = grader.tau2_state
    [case] = [name for name in _case_names(folder, "telecom.agent.yaml")][:1]
    with entered_case(CaseScope(name=case, index=0)) as scope:
        found = json.loads(tools.get_customer_by_phone(phone_number="555-123-2002"))
        assert found["full_name"] == "John Smith"
        environment = scope.state[state.STATE_KEY]
        assert environment.user_tools.db.surroundings.phone_number == "555-123-2002"
        verdict = grader.tau2_reward(end_context(case, []))
    # the fix needs the user's own actions on the phone, which no simulated user can take
    assert verdict.passed is False and "ENV_ASSERTION" in verdict.details["reward_breakdown"]


def _case_names(folder: Path, agent_file: str) -> list[str]:
    import yaml

    agent = yaml.safe_load((folder / agent_file).read_text("utf-8"))
    return [case["name"] for case in agent["test_cases"]]


def test_a_replayed_run_is_graded_from_its_recorded_calls(folder: Path) -> None:
    """A cassette replay runs no tool: the grader rebuilds the agent's database from the
    calls alone, outside any case, and notes a recorded result its replay does not give."""
    tools = suite_module(folder, "tools_retail")
    grader = suite_module(folder, "tau2_grader")
    with entered_case(CaseScope(name="retail_0", index=0)):
        calls = run_calls(tools, _reference(grader.tau2_state, "retail_0"))
    verdict = grader.tau2_reward(end_context("retail_0", calls))
    assert verdict.passed is True and "replay_differs" not in verdict.details
    tampered = [calls[0].model_copy(update={"result": "something else"}), *calls[1:]]
    verdict = grader.tau2_reward(end_context("retail_0", tampered))
    assert verdict.passed is True
    assert verdict.details["replay_differs"] == ["find_user_id_by_name_zip"]
    refused = [*calls[:-1], calls[-1].model_copy(update={"call_problem": "bad_arguments"})]
    verdict = grader.tau2_reward(end_context("retail_0", refused))
    assert verdict.passed is False  # a refused call changed nothing
