"""Per-turn `expected_tools` assertions (contract-tool-arg-matchers.md §1, §5-§7; FR-011/012)."""

from __future__ import annotations

import time
from typing import Any

import pytest

from holodeck_lsp.engine.tool_assertions import check_expected_tools
from holodeck_lsp.schema.results import ArgMatchDetail, ToolInvocation
from holodeck_lsp.schema.test_case import ExpectedTool


def _tool(raw: dict[str, Any]) -> ExpectedTool:
    """An expected tool from its YAML shape, parsed exactly as the loader does."""
    return ExpectedTool.model_validate(raw)


def _calls(*calls: tuple[str, dict[str, Any]]) -> list[ToolInvocation]:
    return [ToolInvocation(name=name, args=args) for name, args in calls]


def _one(
    expected: list[str | ExpectedTool], calls: list[ToolInvocation], **kwargs: Any
) -> tuple[bool | None, ArgMatchDetail]:
    passed, details = check_expected_tools(expected, calls, **kwargs)
    assert details is not None and len(details) == 1
    return passed, details[0]


# --------------------------------------------------------------------------- SC-006 matrix

# (row, asserted args in YAML shape, the args of each `subtract` call in the turn, passes)
SC_006: list[tuple[int, dict[str, Any], list[dict[str, Any]], bool]] = [
    (1, {"a": 206588}, [{"a": 206588}], True),
    (2, {"a": 206588}, [{"a": 206588.0}], True),
    (3, {"a": 206588}, [{"a": 206000}], False),
    (4, {"a": 206588.0}, [{"a": 206588}], True),
    (5, {"a": {"fuzzy": "206588"}}, [{"a": "206,588"}], True),
    (6, {"a": {"fuzzy": "206588"}}, [{"a": "206 588"}], True),
    (7, {"a": {"fuzzy": "206588"}}, [{"a": 206588.0}], True),
    (8, {"a": {"fuzzy": "206588"}}, [{"a": 205000}], False),
    (9, {"a": {"fuzzy": "14.14%"}}, [{"a": 0.1414}], True),
    (10, {"a": {"fuzzy": "YES"}}, [{"a": "yes"}], True),
    (11, {"a": {"fuzzy": "YES"}}, [{"a": " yes "}], True),
    (12, {"a": {"regex": "^2009.*$"}}, [{"a": "2009 cash flow"}], True),
    (13, {"a": {"regex": "^2009.*$"}}, [{"a": "report 2009 cash flow"}], False),
    (14, {"a": {"regex": r"^181001(\.0+)?$"}}, [{"a": "181001.0"}], True),
    (15, {"a": {"regex": r"^181001(\.0+)?$"}}, [{"a": "181001.5"}], False),
    (16, {"a": 206588}, [{}], False),
    (17, {"a": 206588, "b": "x"}, [{"a": 206588, "b": "x", "c": "y"}], True),
    (18, {"a": True}, [{"a": True}], True),
    (19, {"a": True}, [{"a": 1}], False),
    (20, {"a": [1, 2]}, [{"a": [1, 2]}], True),
    (21, {"a": [1, 2]}, [{"a": [1.0, 2.0]}], True),
    (22, {"a": {"mode": "fast"}}, [{"a": {"mode": "fast"}}], True),
    (23, {"a": {"fuzzy": "206588"}}, [{"a": 205000}, {"a": "206,588"}], True),
]


@pytest.mark.parametrize(
    ("asserted", "call_args", "passes"),
    [
        pytest.param(asserted, args, passes, id=f"row{row}")
        for row, asserted, args, passes in SC_006
    ],
)
def test_sc006_acceptance_matrix(
    asserted: dict[str, Any], call_args: list[dict[str, Any]], passes: bool
) -> None:
    calls = _calls(*[("subtract", args) for args in call_args])
    passed, detail = _one([_tool({"name": "subtract", "args": asserted})], calls)
    assert passed is passes
    assert detail.passed is passes
    assert (detail.unmatched_reason is None) is passes
    if passes:
        assert detail.matched_calls >= 1
        assert detail.matched_call_index is not None
    else:
        assert detail.matched_calls == 0
        assert detail.matched_call_index is None


def test_sc006_row_23_reports_the_second_call_as_the_match() -> None:
    calls = _calls(("subtract", {"a": 205000}), ("subtract", {"a": "206,588"}))
    _, detail = _one([_tool({"name": "subtract", "args": {"a": {"fuzzy": "206588"}}})], calls)
    assert detail.matched_call_index == 1
    assert detail.matched_calls == 1


# --------------------------------------------------------------------------- nothing asserted


@pytest.mark.parametrize("expected", [None, []])
def test_nothing_asserted(expected: list[str | ExpectedTool] | None) -> None:
    assert check_expected_tools(expected, _calls(("subtract", {"a": 1}))) == (None, None)


# --------------------------------------------------------------------------- call selection


def test_bare_name_is_a_name_only_assertion_with_count_one() -> None:
    passed, detail = _one(["subtract"], _calls(("lookup", {}), ("subtract", {"a": 1})))
    assert passed is True
    assert detail == ArgMatchDetail(
        tool="subtract", args_asserted=None, count=1, matched_calls=1, matched_call_index=1
    )


def test_name_is_a_case_sensitive_substring() -> None:
    calls = _calls(("mcp__tools__subtract", {}), ("Subtract", {}))
    _, detail = _one(["subtract"], calls)
    assert (detail.matched_calls, detail.matched_call_index) == (1, 0)
    passed, _ = _one(["SUBTRACT"], calls)
    assert passed is False


def test_name_only_assertion_fails_on_a_turn_without_calls() -> None:
    # Only this turn's calls are passed in; calls made in other turns never count (§6).
    passed, detail = _one(["subtract"], [])
    assert passed is False
    assert detail.unmatched_reason == "tool 'subtract' was not called (no tool calls this turn)"


def test_a_call_with_no_arguments_passes_a_name_only_assertion() -> None:
    passed, _ = _one([_tool({"name": "subtract"})], _calls(("subtract", {})))
    assert passed is True


def test_unasserted_args_are_ignored() -> None:
    calls = _calls(("subtract", {"a": 206588, "b": "x", "c": "y"}))
    passed, _ = _one([_tool({"name": "subtract", "args": {"a": 206588}})], calls)
    assert passed is True


def test_one_call_must_satisfy_every_asserted_arg() -> None:
    # a matches on the first call and b on the second: no single call matches both.
    calls = _calls(("subtract", {"a": 1, "b": 0}), ("subtract", {"a": 0, "b": 2}))
    passed, _ = _one([_tool({"name": "subtract", "args": {"a": 1, "b": 2}})], calls)
    assert passed is False


def test_args_of_other_tools_do_not_count() -> None:
    calls = _calls(("add", {"a": 1}), ("subtract", {"a": 2}))
    passed, detail = _one([_tool({"name": "subtract", "args": {"a": 1}})], calls)
    assert passed is False
    assert detail.unmatched_reason == "arg 'a' mismatch: expected 1, got 2"


def test_every_assertion_must_pass_and_details_keep_yaml_order() -> None:
    expected: list[str | ExpectedTool] = [
        _tool({"name": "subtract", "args": {"a": {"fuzzy": "1,000"}}}),
        "divide",
        "lookup",
    ]
    calls = _calls(("lookup", {}), ("subtract", {"a": 1000}))
    passed, details = check_expected_tools(expected, calls)
    assert passed is False
    assert details is not None
    assert [(d.tool, d.passed) for d in details] == [
        ("subtract", True),
        ("divide", False),
        ("lookup", True),
    ]
    assert details[0].args_asserted == {"a": {"fuzzy": "1,000"}}
    assert details[0].matched_call_index == 1


def test_args_asserted_is_the_yaml_form() -> None:
    raw = {"a": 206588, "b": {"fuzzy": "yes"}, "c": {"regex": "^x$"}, "d": {"mode": "fast"}}
    _, detail = _one([_tool({"name": "t", "args": raw})], [])
    assert detail.args_asserted == raw


# --------------------------------------------------------------------------- count


def test_count_requires_that_many_matching_calls() -> None:
    tool = _tool({"name": "subtract", "args": {"a": 1}, "count": 2})
    calls = _calls(("subtract", {"a": 1}), ("subtract", {"a": 2}), ("subtract", {"a": 1.0}))
    passed, detail = _one([tool], calls)
    assert passed is True
    assert (detail.matched_calls, detail.matched_call_index) == (2, 0)


def test_too_few_matching_calls_all_of_which_match() -> None:
    tool = _tool({"name": "subtract", "count": 2})
    passed, detail = _one([tool], _calls(("subtract", {})))
    assert passed is False
    assert detail.matched_calls == 1
    assert detail.matched_call_index == 0  # the first match is still reported
    assert detail.unmatched_reason == "2 matching calls required, 1 found"


def test_too_few_matching_calls_names_the_closest_other_call() -> None:
    tool = _tool({"name": "subtract", "args": {"a": 1}, "count": 2})
    passed, detail = _one([tool], _calls(("subtract", {"a": 1}), ("subtract", {"a": 3})))
    assert passed is False
    assert detail.unmatched_reason == (
        "2 matching calls required, 1 found; arg 'a' mismatch: expected 1, got 3 "
        "(closest of 2 calls, index 1)"
    )


def test_count_with_no_matching_call_at_all() -> None:
    tool = _tool({"name": "subtract", "args": {"a": 1}, "count": 3})
    _, detail = _one([tool], _calls(("subtract", {"a": 2})))
    assert detail.unmatched_reason == (
        "3 matching calls required, 0 found; arg 'a' mismatch: expected 1, got 2"
    )


def test_count_of_a_tool_not_called() -> None:
    tool = _tool({"name": "divide", "count": 2})
    _, detail = _one([tool], _calls(("subtract", {})))
    assert detail.unmatched_reason == "tool 'divide' was not called (calls this turn: subtract)"


# --------------------------------------------------------------------------- reasons


def test_reason_tool_not_called_lists_distinct_names_in_call_order() -> None:
    calls = _calls(("subtract", {}), ("lookup", {}), ("subtract", {}))
    _, detail = _one(["divide"], calls)
    assert detail.unmatched_reason == (
        "tool 'divide' was not called (calls this turn: subtract, lookup)"
    )


def test_reason_tool_not_called_summarises_many_names() -> None:
    calls = _calls(*[(f"tool{n}", {}) for n in range(12)])
    _, detail = _one(["divide"], calls)
    assert detail.unmatched_reason is not None
    assert detail.unmatched_reason.endswith("tool8, tool9, … (2 more))")


def test_reason_missing_arg() -> None:
    _, detail = _one([_tool({"name": "subtract", "args": {"a": 1}})], _calls(("subtract", {})))
    assert detail.unmatched_reason == "arg 'a' missing"


@pytest.mark.parametrize(
    ("matcher", "actual", "reason"),
    [
        ({"fuzzy": "181001"}, 180000, "arg 'b' mismatch: expected fuzzy \"181001\", got 180000"),
        (206588, 206000, "arg 'b' mismatch: expected 206588, got 206000"),
        (206588, "206588", "arg 'b' mismatch: expected 206588, got \"206588\""),
        (
            {"regex": "^2009.*$"},
            "report 2009",
            'arg \'b\' mismatch: expected regex "^2009.*$", got "report 2009"',
        ),
        (True, 1, "arg 'b' mismatch: expected true, got 1"),
        (None, 0, "arg 'b' mismatch: expected null, got 0"),
        (
            {"mode": "fast"},
            {"mode": "slow"},
            'arg \'b\' mismatch: expected {"mode": "fast"}, got {"mode": "slow"}',
        ),
    ],
)
def test_reason_mismatch(matcher: Any, actual: Any, reason: str) -> None:
    tool = _tool({"name": "subtract", "args": {"b": matcher}})
    _, detail = _one([tool], _calls(("subtract", {"b": actual})))
    assert detail.unmatched_reason == reason


def test_reason_reports_the_first_failing_arg_in_yaml_order() -> None:
    tool = _tool({"name": "subtract", "args": {"a": 1, "b": 2, "c": 3}})
    _, detail = _one([tool], _calls(("subtract", {"a": 1, "c": 4})))
    assert detail.unmatched_reason == "arg 'b' missing"


def test_reason_comes_from_the_closest_call() -> None:
    tool = _tool({"name": "subtract", "args": {"a": 1, "b": 2}})
    calls = _calls(
        ("subtract", {"a": 9, "b": 9}),  # satisfies neither
        ("lookup", {}),
        ("subtract", {"a": 1, "b": 7}),  # satisfies a: closest
        ("subtract", {"a": 1, "b": 8}),  # as close, but later
    )
    _, detail = _one([tool], calls)
    assert detail.unmatched_reason == (
        "arg 'b' mismatch: expected 2, got 7 (closest of 3 calls, index 2)"
    )


def test_reason_on_a_tie_is_the_earliest_call() -> None:
    tool = _tool({"name": "subtract", "args": {"a": 1}})
    _, detail = _one([tool], _calls(("subtract", {}), ("subtract", {"a": 2})))
    assert detail.unmatched_reason == "arg 'a' missing (closest of 2 calls, index 0)"


def test_reason_cuts_long_values() -> None:
    tool = _tool({"name": "t", "args": {"a": "x"}})
    _, detail = _one([tool], _calls(("t", {"a": "y" * 500})))
    assert detail.unmatched_reason is not None
    assert len(detail.unmatched_reason) < 150
    assert detail.unmatched_reason.endswith('…"')


# --------------------------------------------------------------------------- regex timeout


def test_catastrophic_regex_fails_with_a_timeout_reason() -> None:
    # `(a|aa)+$` backtracks exponentially on the `regex` engine (which defuses `(a+)+$`).
    tool = _tool({"name": "t", "args": {"a": {"regex": "(a|aa)+$"}}})
    calls = _calls(("t", {"a": "a" * 40 + "b"}))
    started = time.perf_counter()
    passed, detail = _one([tool], calls, regex_timeout=0.05)
    assert time.perf_counter() - started < 5  # generous: the point is that it returns
    assert passed is False
    assert detail.unmatched_reason is not None
    assert detail.unmatched_reason.startswith("arg 'a' mismatch: expected regex \"(a|aa)+$\"")
    assert detail.unmatched_reason.endswith("(regex timed out after 0.05s)")


def test_nested_quantifier_pattern_is_defused_not_timed_out() -> None:
    tool = _tool({"name": "t", "args": {"a": {"regex": "(a+)+$"}}})
    _, detail = _one([tool], _calls(("t", {"a": "a" * 40 + "b"})), regex_timeout=0.05)
    assert detail.unmatched_reason == (
        'arg \'a\' mismatch: expected regex "(a+)+$", got "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa'
        'aaaaaaaab"'
    )


def test_a_timed_out_call_does_not_stop_another_call_from_matching() -> None:
    tool = _tool({"name": "t", "args": {"a": {"regex": "(a|aa)+$"}}})
    calls = _calls(("t", {"a": "a" * 40 + "b"}), ("t", {"a": "aaa"}))
    passed, detail = _one([tool], calls, regex_timeout=0.05)
    assert passed is True
    assert detail.matched_call_index == 1
