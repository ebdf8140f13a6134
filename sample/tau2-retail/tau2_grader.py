"""τ²-bench's reward of a conversation, for the parts τ² computes without a model (agent.yaml:
`grader: "tau2_grader:tau2_reward"` in `simulated_user.at_end.evaluations`, metric
`tau2_reward`). Written by `holodeck-lsp import tau2`; docs/importing-tau2.md.

Called once after the conversation with every tool call of it. As τ²'s evaluator
(tau2_bench/src/tau2/evaluator/) does, the agent's database is rebuilt by replaying the
agent's calls on a fresh environment set to the task's initial state (so a replayed run,
whose tools never ran, is graded as the live one was; a replayed result that differs from
the recorded one is noted in `details`, as τ²'s lenient replay logs it), then:
  DB             another fresh environment replays the task's reference actions (an action
                 that fails is passed over, as τ² does); its database hash, and the user
                 database's where the domain has one, must equal the agent's;
  ENV_ASSERTION  each of the task's env assertions holds on the agent's environment;
  ACTION         each reference action matches some call of the agent (same name, the
                 arguments in `compare_args`, else all of the call's);
each counted only when the task's `reward_basis` names it; the reward is their product (1 or
0). The two other parts of τ²'s reward are checked beside this grader in the same `at_end`
block: COMMUNICATE as `communicate_info`, NL_ASSERTION as a judged metric. The case passes
only if every check passes: the product of τ²'s rewards.
"""

from __future__ import annotations

import importlib
import importlib.util
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import Any


def _load(name: str) -> Any:
    """A neighbour file as a module private to this folder (shared with the tools)."""
    path = Path(__file__).resolve().with_name(f"{name}.py")
    unique = f"_{name}_{abs(hash(path.parent)):x}"
    if unique not in sys.modules:
        spec = importlib.util.spec_from_file_location(unique, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        spec.loader.exec_module(module)
    return sys.modules[unique]


tau2_state = _load("tau2_state")


def _result_type() -> Any:
    for module, attribute in (
        ("holodeck_lsp.engine.code_graders", "GraderResult"),  # holodeck-lsp
        ("holodeck.lib.test_runner.code_grader", "GraderResult"),  # upstream HoloDeck
    ):
        try:
            return getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError):
            continue
    raise ImportError("tau2_grader needs holodeck-lsp or holodeck-ai installed")


#: The reward bases this grader computes; τ²'s other two are checked beside it.
GRADED_HERE = ("DB", "ENV_ASSERTION", "ACTION")


def invocations(context: Any) -> list[Any]:
    """Every tool call of the conversation that ran (a call the backend refused — an unknown
    tool, arguments that were not JSON or did not fit — changed nothing)."""
    turns: list[Iterable[Any]] = list(getattr(context, "earlier_tool_invocations", None) or ())
    turns.append(getattr(context, "tool_invocations", ()) or ())
    return [call for made in turns for call in made if not getattr(call, "call_problem", None)]


def agent_calls(context: Any) -> list[tuple[str, dict[str, Any]]]:
    """Every tool call of the conversation (name without a backend prefix, arguments)."""
    return [
        (tau2_state.bare_name(str(call.name)), tau2_state.plain(call.args or {}))
        for call in invocations(context)
    ]


def replayed(domain: str, the_task: Any, context: Any) -> tuple[Any, list[str]]:
    """The agent's environment: its calls replayed on a fresh one (τ²'s Environment.set_state
    does the same with the conversation's messages), and the calls whose result differs from
    the recorded one."""
    environment = tau2_state.new_environment(domain, the_task)
    differing: list[str] = []
    for call in invocations(context):
        name = tau2_state.bare_name(str(call.name))
        result = tau2_state.respond(environment, name, tau2_state.plain(call.args or {}))
        recorded = getattr(call, "result", None)
        if recorded is not None and str(recorded) != result:
            differing.append(name)
    return environment, differing


def db_check(domain: str, the_task: Any, predicted: Any) -> tuple[bool, list[str]]:
    """τ²'s DB check: the agent's databases against the reference actions' (and the names
    of reference actions that failed on the fresh copy)."""
    criteria = the_task.evaluation_criteria
    if criteria.actions is None and criteria.env_assertions is None:
        return True, []
    gold = tau2_state.new_environment(domain, the_task)
    failed: list[str] = []
    for action in criteria.actions or []:
        try:
            gold.make_tool_call(
                tool_name=action.name, requestor=action.requestor, **action.arguments
            )
        except Exception as error:  # τ² logs and goes on: so do we, and say so
            failed.append(f"{action.name}: {error}")
    same = (
        gold.get_db_hash() == predicted.get_db_hash()
        and gold.get_user_db_hash() == predicted.get_user_db_hash()
    )
    return same, failed


def action_checks(the_task: Any, calls: list[tuple[str, dict[str, Any]]]) -> list[str]:
    """The reference actions no call of the agent matches (τ²'s ActionEvaluator)."""
    made = [tau2_state.tool_call(name, args) for name, args in calls]
    return [
        f"{action.name}({action.arguments})"
        for action in the_task.evaluation_criteria.actions or []
        if not any(action.compare_with_tool_call(call) for call in made)
    ]


def _unmet_assertions(assertions: list[Any], predicted: Any) -> list[str]:
    """The env assertions that do not hold on the agent's environment. One that raises (its
    subject missing: the agent never created the task it checks) is unmet here, with the
    error; τ²'s evaluator stops on it instead."""
    unmet: list[str] = []
    for assertion in assertions:
        try:
            held = predicted.run_env_assertion(assertion, raise_assertion_error=False)
        except Exception as error:
            unmet.append(f"{assertion} ({type(error).__name__}: {error})")
            continue
        if not held:
            unmet.append(str(assertion))
    return unmet


def reward(
    domain: str, the_task: Any, predicted: Any, calls: list[tuple[str, dict[str, Any]]]
) -> tuple[float, dict[str, Any]]:
    """(reward, details) of the parts graded here, by the task's reward basis."""
    criteria = the_task.evaluation_criteria
    if criteria is None:
        return 1.0, {"note": "the task has no evaluation criteria"}
    basis = {getattr(kind, "value", kind) for kind in criteria.reward_basis}
    breakdown: dict[str, float] = {}
    details: dict[str, Any] = {"reward_basis": sorted(basis)}
    if basis & {"DB", "ENV_ASSERTION"}:
        same, failed = db_check(domain, the_task, predicted)
        if failed:
            details["reference_actions_failed"] = failed
        if "DB" in basis:
            breakdown["DB"] = 1.0 if same else 0.0
        if "ENV_ASSERTION" in basis:
            unmet = _unmet_assertions(criteria.env_assertions or [], predicted)
            breakdown["ENV_ASSERTION"] = 0.0 if unmet else 1.0
            if unmet:
                details["env_assertions_unmet"] = unmet
    if "ACTION" in basis:
        missing = action_checks(the_task, calls)
        breakdown["ACTION"] = 0.0 if missing else 1.0
        if missing:
            details["actions_missing"] = missing
    details["reward_breakdown"] = breakdown
    details["checked_beside"] = sorted(basis - set(GRADED_HERE))
    total = 1.0
    for value in breakdown.values():
        total *= value
    return total, details


def _reason(total: float, details: dict[str, Any]) -> str:
    breakdown = details.get("reward_breakdown", {})
    if total == 1.0:
        shown = ", ".join(breakdown) or "nothing to check here"
        return f"τ² reward 1 ({shown})"
    failed = [name for name, value in breakdown.items() if value != 1.0]
    why = []
    if "DB" in failed:
        why.append("the database differs from the reference actions' result")
    if "ENV_ASSERTION" in failed:
        why.append(f"env assertions unmet: {'; '.join(details['env_assertions_unmet'])}")
    if "ACTION" in failed:
        why.append(f"reference actions not made: {'; '.join(details['actions_missing'])}")
    return "τ² reward 0: " + "; ".join(why)


def tau2_reward(context: Any) -> Any:
    """The τ² reward of the conversation's DB, env assertions and actions (see above)."""
    name = getattr(context, "test_case_name", None)
    domain, _ = tau2_state.split_case_name(name)
    the_task = tau2_state.task(name)
    predicted, differing = replayed(domain, the_task, context)
    total, details = reward(domain, the_task, predicted, agent_calls(context))
    if differing:
        details["replay_differs"] = differing
    passed = total == 1.0
    return _result_type()(
        score=total, passed=passed, reason=_reason(total, details), details=details
    )
