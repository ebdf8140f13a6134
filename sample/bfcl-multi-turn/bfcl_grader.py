"""The BFCL-equivalent verdict of a turn (agent.yaml: `grader: "bfcl_grader:bfcl_equivalent"`,
metric `bfcl_equivalent`). Written by `holodeck-lsp import bfcl`; docs/importing-bfcl.md.

What BFCL's multi-turn checker does for turn N, done for that turn alone: replay the agent's
calls of turns 0..N on fresh instances from the record's initial_config, replay the
ground-truth calls of turns 0..N on other fresh instances, then
  1. the turn has ground-truth calls but the agent made none: fail;
  2. every public attribute of every instance must be equal (the state);
  3. each result of turn N's ground-truth calls must appear among the results of the agent's
     calls so far (any order, each used once).
A turn without ground-truth calls (a miss_param / miss_func turn) is not checked, as in BFCL.
As BFCL's inference loop and checker (docs/importing-bfcl.md, "Parity with BFCL"): a turn
stopped at the tool-round limit (`tool_limit_reached`) fails, for BFCL calls such a record
"force-terminated" and counts it invalid whatever its state; a call whose arguments were not
JSON (`call_problem: invalid_json`) is not replayed, for BFCL's checker cannot decode it and
skips it; every other call is replayed as sent, a name that is no function of the record's
classes (or not a name at all) giving an error and leaving the state alone, as BFCL's
execution does.
The case passes BFCL's checker exactly when every turn passes here. The earlier turns' calls
come from holodeck-lsp's `earlier_tool_invocations` (upstream HoloDeck has no such field: from
turn 1 on the grader says so instead of guessing).
"""

from __future__ import annotations

import ast
import importlib
import importlib.util
import sys
import threading
from collections import Counter
from pathlib import Path
from typing import Any


def _load(name: str) -> Any:
    """A neighbour file as a module private to this folder (shared with tools.py)."""
    path = Path(__file__).resolve().with_name(f"{name}.py")
    unique = f"_{name}_{abs(hash(path.parent)):x}"
    if unique not in sys.modules:
        spec = importlib.util.spec_from_file_location(unique, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[unique] = module
        spec.loader.exec_module(module)
    return sys.modules[unique]


bfcl_state = _load("bfcl_state")


def _result_type() -> Any:
    for module, attribute in (
        ("holodeck_lsp.engine.code_graders", "GraderResult"),  # holodeck-lsp
        ("holodeck.lib.test_runner.code_grader", "GraderResult"),  # upstream HoloDeck
    ):
        try:
            return getattr(importlib.import_module(module), attribute)
        except (ImportError, AttributeError):
            continue
    raise ImportError("bfcl_grader needs holodeck-lsp or holodeck-ai installed")


GraderResult = _result_type()


def _verdict(passed: bool, reason: str, details: dict[str, Any]) -> Any:
    return GraderResult(score=1.0 if passed else 0.0, passed=passed, reason=reason, details=details)


#: Calls BFCL's checker never sees: it cannot decode them (ToolInvocation.call_problem).
UNDECODABLE = ("invalid_json",)


def _agent_calls(invocations: Any) -> list[tuple[str, dict[str, Any]]]:
    return [
        (bfcl_state.bare_name(str(call.name)), bfcl_state.plain(call.args or {}))
        for call in invocations
        if getattr(call, "call_problem", None) not in UNDECODABLE
    ]


def grade_turn(
    entry: dict[str, Any],
    turn: int,
    agent_turns: list[list[tuple[str, dict[str, Any]]]],
    limit_reached: int | None = None,
) -> tuple[bool, str, dict[str, Any]]:
    """The verdict of turn `turn` given the agent's calls of turns 0..turn; `limit_reached`:
    the tool-round limit the turn was stopped at, if it was."""
    truth_turns = [_parse(texts) for texts in entry["ground_truth"][: turn + 1]]
    details: dict[str, Any] = {"ground_truth": entry["ground_truth"][turn]}
    if limit_reached is not None:
        details["tool_limit_reached"] = limit_reached
        reason = (
            f"force-terminated: stopped after {limit_reached} tool rounds (the limit; BFCL's "
            "is 20 steps a turn), and BFCL counts such a record invalid whatever its state"
        )
        return False, reason, details
    if not truth_turns[turn]:
        return True, "no ground-truth calls on this turn: BFCL checks nothing here", details
    if not agent_turns[turn]:
        reason = f"no tool calls, where the ground truth makes {len(truth_turns[turn])}"
        return False, reason, details
    model = bfcl_state.new_instances(entry)
    agent_results = [
        bfcl_state.execute(model, name, (), args) for made in agent_turns for name, args in made
    ]
    truth, truth_results = _truth_after(entry["id"], turn, entry)
    differences = bfcl_state.state_differences(model, truth)
    if differences:
        where = "; ".join(f"{name}: {', '.join(attrs)}" for name, attrs in differences.items())
        details["state_differences"] = differences
        return False, f"the state differs from the ground truth's ({where})", details
    missing = list((Counter(truth_results) - Counter(agent_results)).elements())
    if missing:
        details["missing_results"] = [text[:300] for text in missing]
        shown = missing[0] if len(missing[0]) <= 120 else missing[0][:117] + "..."
        return (
            False,
            f"{len(missing)} ground-truth result(s) missing from the agent's calls so far, "
            f"first: {shown}",
            details,
        )
    return True, "same state and every ground-truth result, as BFCL's checker requires", details


#: (record id, turn) -> the ground truth's instances after turns 0..turn and that turn's
#: results. The ground truth does not depend on the agent, so each turn of a record is
#: replayed once per process however many models, repeats and re-grades ask; the instances
#: are only read after this (compared with the agent's).
_TRUTH: dict[tuple[str, int], tuple[dict[str, Any], list[str]]] = {}


def _truth_after(
    record_id: str, turn: int, entry: dict[str, Any]
) -> tuple[dict[str, Any], list[str]]:
    key = (record_id, turn)
    if key not in _TRUTH:
        truth = bfcl_state.new_instances(entry)
        results: list[str] = []
        for parsed in [_parse(texts) for texts in entry["ground_truth"][: turn + 1]]:
            results = [bfcl_state.execute(truth, name, a, k) for name, a, k in parsed]
        _TRUTH[key] = (truth, results)
    return _TRUTH[key]


#: Cases are graded in parallel worker threads, and CPython 3.11's `ast.parse` fails now and
#: then when two threads parse at once ("AST constructor recursion depth mismatch").
_ONE_PARSE_AT_A_TIME = threading.Lock()


def _parse(texts: list[str]) -> list[tuple[str, tuple[Any, ...], dict[str, Any]]]:
    """Ground-truth calls read with `ast` (literal arguments only; the importer checked)."""
    parsed = []
    for text in texts:
        with _ONE_PARSE_AT_A_TIME:
            node = ast.parse(text, mode="eval").body
        assert isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        args = tuple(ast.literal_eval(arg) for arg in node.args)
        kwargs = {k.arg: ast.literal_eval(k.value) for k in node.keywords if k.arg}
        parsed.append((node.func.id, args, kwargs))
    return parsed


def bfcl_equivalent(context: Any) -> Any:
    """One turn graded as BFCL's multi-turn checker grades it (module docstring)."""
    entry = bfcl_state.record(context.test_case_name)
    turn = int(context.turn_index)
    earlier = list(getattr(context, "earlier_tool_invocations", ()) or ())
    if len(earlier) < turn:
        return _verdict(
            False,
            f"the tool calls of turns 0..{turn - 1} are not available to the grader (holodeck-lsp "
            "passes them; this runner does not), so the state cannot be replayed",
            {},
        )
    agent_turns = [_agent_calls(calls) for calls in earlier[:turn]]
    agent_turns.append(_agent_calls(context.tool_invocations))
    limit = getattr(context, "tool_limit_reached", None)
    passed, reason, details = grade_turn(entry, turn, agent_turns, limit)
    return _verdict(passed, reason, details)
