"""Code graders: the GraderContext / GraderResult contract, lifting, failures (loading is
the runner's: tests/runner/agent_code/test_grader_loading.py)."""

from __future__ import annotations

import copy
import dataclasses
import json
import math
import time
from collections.abc import Callable
from typing import Any

import pytest

from holodeck_lsp.engine.code_graders import (
    FrozenToolInvocation,
    GraderContext,
    GraderResult,
    run_code_grader,
)
from holodeck_lsp.schema.metrics import CodeMetric
from holodeck_lsp.schema.results import MetricResult, ToolInvocation

SPEC = "graders:check"


def metric(threshold: float | None = None, **extra: Any) -> CodeMetric:
    return CodeMetric(grader=SPEC, threshold=threshold, **extra)


def context(turn_index: int = 0, **overrides: Any) -> GraderContext:
    fields: dict[str, Any] = {
        "turn_input": "what is the net cash in 2009?",
        "agent_response": "206588",
        "ground_truth": "206588",
        "tool_invocations": (
            ToolInvocation(name="lookup", args={"year": 2009, "cols": ["cash"]}, result=[1, 2]),
        ),
        "retrieval_context": ("page 28",),
        "turn_index": turn_index,
        "test_case_name": "convfinqa-1",
        "turn_config": {"input": "what is the net cash in 2009?", "extra": {"k": [1, 2]}},
    }
    fields.update(overrides)
    return GraderContext(**fields)


def run(grader: Callable[[GraderContext], object], **kwargs: Any) -> MetricResult:
    threshold = kwargs.pop("threshold", None)
    ctx = kwargs.pop("ctx", None) or context()
    return run_code_grader(grader, metric(threshold), ctx, timeout=kwargs.pop("timeout", 5.0))


# --------------------------------------------------------------------------------------------
# SC-009: an exception fails that turn's metric only
# --------------------------------------------------------------------------------------------


def test_raising_grader_fails_only_its_turn_and_the_next_turn_still_grades() -> None:
    def grader(ctx: GraderContext) -> float:
        if ctx.turn_index == 0:
            raise ValueError("program does not parse: subtract(")
        return 1.0

    first = run_code_grader(grader, metric(), context(turn_index=0), timeout=5)
    second = run_code_grader(grader, metric(), context(turn_index=1), timeout=5)

    assert first.kind == "code"
    assert first.metric_name == "check"
    assert first.passed is False
    assert (
        first.error == "grader 'graders:check' raised ValueError: program does not parse: subtract("
    )
    assert first.evaluation_time_ms is not None
    assert second.passed is True
    assert second.score == 1.0
    assert second.error is None


def test_exception_without_message_and_system_exit_are_captured() -> None:
    def silent(ctx: GraderContext) -> float:
        raise KeyError

    def exits(ctx: GraderContext) -> float:
        raise SystemExit(3)

    assert run(silent).error == "grader 'graders:check' raised KeyError"
    assert run(exits).error == "grader 'graders:check' raised SystemExit: 3"


def test_metric_name_is_the_configured_name() -> None:
    result = run_code_grader(
        lambda ctx: True, metric(name="Program equivalence"), context(), timeout=5
    )
    assert result.metric_name == "Program equivalence"


def test_disabled_metric_is_skipped_without_calling_the_grader() -> None:
    def grader(ctx: GraderContext) -> float:
        raise AssertionError("must not be called")

    result = run_code_grader(grader, metric(enabled=False), context(), timeout=5)
    assert result.skipped is True
    assert result.passed is None


# --------------------------------------------------------------------------------------------
# Lifting what a grader returns
# --------------------------------------------------------------------------------------------


def test_grader_result_is_taken_as_is() -> None:
    result = run(
        lambda ctx: GraderResult(score=0.25, passed=True, reason="close enough", details={"a": 1}),
        threshold=0.9,
    )
    assert (result.score, result.passed, result.reasoning) == (0.25, True, "close enough")
    assert result.details == {"a": 1}
    assert result.threshold == 0.9
    assert result.error is None


def test_grader_result_without_passed_uses_the_threshold() -> None:
    assert run(lambda ctx: GraderResult(score=0.6)).passed is True  # default 0.5
    assert run(lambda ctx: GraderResult(score=0.6), threshold=0.7).passed is False


@pytest.mark.parametrize(("value", "score", "passed"), [(True, 1.0, True), (False, 0.0, False)])
def test_bare_bool_is_lifted(value: bool, score: float, passed: bool) -> None:
    result = run(lambda ctx: value, threshold=0.0)
    assert (result.score, result.passed, result.error) == (score, passed, None)


@pytest.mark.parametrize(
    ("value", "threshold", "passed"),
    [(0.5, None, True), (0.49, None, False), (1, 1.0, True), (0, None, False), (0.8, 0.9, False)],
)
def test_bare_number_is_lifted(value: float, threshold: float | None, passed: bool) -> None:
    result = run(lambda ctx: value, threshold=threshold)
    assert result.score == float(value)
    assert result.passed is passed
    assert result.error is None


@pytest.mark.parametrize(
    "returned",
    [1.5, -0.1, math.nan, math.inf, GraderResult(score=2.0), GraderResult(score=math.nan)],
)
def test_score_outside_unit_interval_is_an_error(returned: object) -> None:
    result = run(lambda ctx: returned)
    assert result.passed is False
    assert result.error is not None
    assert result.error.startswith("grader 'graders:check' returned score")
    assert "outside [0, 1]" in result.error


@pytest.mark.parametrize(
    ("returned", "kind"), [([1.0], "list"), (None, "NoneType"), ("1.0", "str"), ({}, "dict")]
)
def test_other_return_types_are_errors(returned: object, kind: str) -> None:
    result = run(lambda ctx: returned)
    assert result.passed is False
    assert result.error == (
        f"grader 'graders:check' returned {kind}, expected "
        "holodeck_lsp.engine.code_graders.GraderResult (or any object with score, passed, "
        "reason, details), bool or float"
    )


# Upstream HoloDeck's result type, as its graders import it: a frozen dataclass with exactly
# these fields in holodeck.lib.test_runner.code_grader (checked against holodeck-ai 0.7.1 by
# scripts/compare_graders_with_upstream.py). Declared here, never imported.
@dataclasses.dataclass(frozen=True)
class UpstreamGraderResult:
    score: float
    passed: bool | None = None
    reason: str | None = None
    details: dict[str, Any] | None = None


UpstreamGraderResult.__module__ = "holodeck.lib.test_runner.code_grader"
UpstreamGraderResult.__qualname__ = "GraderResult"


def test_upstream_grader_results_are_read_like_ours() -> None:
    full = run(lambda ctx: UpstreamGraderResult(1.0, True, "exact", {"n": 1}))
    assert (full.score, full.passed, full.reasoning, full.details) == (1.0, True, "exact", {"n": 1})
    assert full.error is None
    derived = run(lambda ctx: UpstreamGraderResult(0.4), threshold=0.3)
    assert derived.passed is True and derived.score == 0.4


def test_a_result_type_missing_fields_is_named_with_its_module() -> None:
    @dataclasses.dataclass
    class Partial:
        score: float
        passed: bool

    result = run(lambda ctx: Partial(1.0, True))
    assert result.passed is False and result.error is not None
    qualified = f"{__name__}.test_a_result_type_missing_fields_is_named_with_its_module.<locals>"
    assert result.error.startswith(
        f"grader 'graders:check' returned {qualified}.Partial, which has no reason, details; "
        "expected holodeck_lsp.engine.code_graders.GraderResult"
    )


#: upstream's GraderContext fields (holodeck-ai 0.7.1), in its order, and its ToolInvocation's
UPSTREAM_CONTEXT_FIELDS = (
    "turn_input",
    "agent_response",
    "ground_truth",
    "tool_invocations",
    "retrieval_context",
    "turn_index",
    "test_case_name",
    "turn_config",
)
UPSTREAM_INVOCATION_FIELDS = ("name", "args", "result", "bytes", "duration_ms", "error")


def test_the_context_exposes_upstreams_attributes() -> None:
    ctx = context()
    names = tuple(field.name for field in dataclasses.fields(ctx))
    # upstream's fields first, in its order; then holodeck-lsp's additions (with defaults)
    assert names[: len(UPSTREAM_CONTEXT_FIELDS)] == UPSTREAM_CONTEXT_FIELDS
    assert names[len(UPSTREAM_CONTEXT_FIELDS) :] == (
        "earlier_tool_invocations",
        "tool_limit_reached",
    )
    assert ctx.earlier_tool_invocations == ()
    assert isinstance(ctx.turn_config, dict)  # upstream's is a dict
    call = ctx.tool_invocations[0]
    for name in UPSTREAM_INVOCATION_FIELDS:
        assert hasattr(call, name), name
    assert call.bytes == len(json.dumps([1, 2]))


def test_malformed_grader_result_fields_are_errors() -> None:
    bad_passed = run(lambda ctx: GraderResult(score=1.0, passed="yes"))  # type: ignore[arg-type]
    bad_score = run(lambda ctx: GraderResult(score="1"))  # type: ignore[arg-type]
    assert bad_passed.error is not None and "passed='yes'" in bad_passed.error
    assert bad_score.error is not None and "score of type str" in bad_score.error


@pytest.mark.parametrize("details", [{"when": object()}, {"x": math.nan}, {(1, 2): "tuple key"}])
def test_details_that_are_not_json_are_an_error(details: dict[Any, Any]) -> None:
    result = run(lambda ctx: GraderResult(score=1.0, passed=True, details=details))
    assert result.passed is False
    assert result.error is not None
    assert "details that are not JSON-serialisable" in result.error


def test_details_are_stored_as_a_json_copy() -> None:
    details: dict[str, Any] = {"tree": ("subtract", [206588, 181001])}
    result = run(lambda ctx: GraderResult(score=1.0, details=details))
    assert result.details == {"tree": ["subtract", [206588, 181001]]}
    details["tree"][1].append(0)
    assert result.details == {"tree": ["subtract", [206588, 181001]]}
    assert json.loads(result.model_dump_json())["details"] == result.details


# --------------------------------------------------------------------------------------------
# Time limit
# --------------------------------------------------------------------------------------------


def test_slow_grader_times_out_promptly() -> None:
    def sleeper(ctx: GraderContext) -> float:
        time.sleep(5)
        return 1.0

    started = time.monotonic()
    result = run(sleeper, timeout=0.2)
    elapsed = time.monotonic() - started

    assert elapsed < 2.0
    assert result.passed is False
    assert result.error == "grader 'graders:check' timed out after 0.2s"


def test_timeout_must_be_positive() -> None:
    with pytest.raises(ValueError, match="positive"):
        run(lambda ctx: True, timeout=0)


# --------------------------------------------------------------------------------------------
# The context is read-only
# --------------------------------------------------------------------------------------------


def test_grader_cannot_change_the_callers_objects() -> None:
    invocation = ToolInvocation(
        name="subtract", args={"a": 206588, "b": [181001], "opts": {"round": 2}}, result={"v": [1]}
    )
    turn_config: dict[str, Any] = {
        "input": "what is the difference?",
        "expected_tools": [{"name": "subtract", "args": {"a": 206588}}],
    }
    invocations = [invocation]
    before = (invocation.model_copy(deep=True), copy.deepcopy(turn_config))
    attempts: list[str] = []

    def vandal(ctx: GraderContext) -> bool:
        mutations: list[Callable[[], object]] = [
            lambda: ctx.turn_config.__setitem__("input", "changed"),  # type: ignore[index]
            lambda: ctx.turn_config["expected_tools"].append({}),
            lambda: ctx.turn_config["expected_tools"][0]["args"].update(a=0),
            lambda: ctx.turn_config["expected_tools"][0].pop("name"),
            lambda: setattr(ctx.tool_invocations[0], "name", "other"),
            lambda: ctx.tool_invocations[0].args.__setitem__("a", 0),
            lambda: ctx.tool_invocations[0].args["b"].append(0),
            lambda: ctx.tool_invocations[0].args["opts"].clear(),
            lambda: ctx.tool_invocations[0].result["v"].append(0),
            lambda: setattr(ctx, "turn_index", 7),
            lambda: ctx.tool_invocations.append(None),  # type: ignore[attr-defined]
        ]
        for mutate in mutations:
            try:
                mutate()
            except Exception as exc:
                attempts.append(type(exc).__name__)
            else:
                attempts.append("no error")
        # Bypassing the guards changes only the grader's own copies.
        dict.__setitem__(ctx.tool_invocations[0].args, "a", -1)
        object.__setattr__(ctx.tool_invocations[0], "name", "bypassed")
        return True

    ctx = context(tool_invocations=tuple(invocations), turn_config=turn_config)
    result = run(vandal, ctx=ctx)

    assert result.passed is True
    assert "no error" not in attempts, attempts
    assert invocation == before[0]
    assert turn_config == before[1]
    assert invocations == [invocation]
    # Each context copies what it is given: the next grader still sees the original values.
    fresh = context(tool_invocations=tuple(invocations), turn_config=turn_config)
    assert fresh.tool_invocations[0].args["a"] == 206588


def test_context_reads_like_plain_data() -> None:
    invocation = ToolInvocation(name="subtract", args={"a": [1, 2], "b": {"c": 3}}, result="25587")
    ctx = context(tool_invocations=(invocation,), turn_config={"k": [{"x": 1}]})
    call = ctx.tool_invocations[0]

    assert isinstance(call, ToolInvocation)
    assert isinstance(call, FrozenToolInvocation)
    assert call.args == {"a": [1, 2], "b": {"c": 3}}
    assert call.model_dump() == invocation.model_dump()
    assert json.loads(call.model_dump_json()) == json.loads(invocation.model_dump_json())
    assert json.dumps(dict(ctx.turn_config)) == '{"k": [{"x": 1}]}'
    assert copy.deepcopy(ctx.turn_config["k"]) == [{"x": 1}]
    assert ctx.retrieval_context == ("page 28",)
