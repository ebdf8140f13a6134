"""Roll-up of turn results into a case result and of cases into a summary (FR-015/016)."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from holodeck_lsp.engine.rollup import (
    INPUT_SEPARATOR,
    multi_turn_result,
    roll_up_metrics,
    single_turn_result,
    sum_usage,
    summarize,
)
from holodeck_lsp.schema.results import MetricResult, TokenUsage, ToolInvocation, TurnResult

counts = st.integers(min_value=0, max_value=10_000)


@st.composite
def usages(draw: st.DrawFn) -> TokenUsage:
    prompt, completion, extra = draw(counts), draw(counts), draw(counts)
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion + extra,
        cache_creation_tokens=draw(counts),
        cache_read_tokens=draw(counts),
    )


@st.composite
def turns(draw: st.DrawFn, index: int) -> TurnResult:
    metric_names = draw(st.lists(st.sampled_from(["numeric", "equality", "g"]), unique=True))
    return TurnResult(
        turn_index=index,
        input=draw(st.text(max_size=20)),
        response=draw(st.none() | st.text(max_size=20)),
        tool_calls=["subtract"] * draw(st.integers(0, 3)),
        metric_results=[
            MetricResult(
                metric_name=name,
                score=draw(st.floats(0, 1)),
                passed=draw(st.booleans()),
                skipped=draw(st.booleans()),
            )
            for name in metric_names
        ],
        passed=draw(st.booleans()),
        execution_time_ms=draw(st.integers(0, 10_000)),
        token_usage=draw(st.none() | usages()),
        errors=draw(st.lists(st.text(max_size=10), max_size=2)),
    )


@st.composite
def turn_lists(draw: st.DrawFn) -> list[TurnResult]:
    size = draw(st.integers(1, 6))
    return [draw(turns(index)) for index in range(size)]


#: Examples per property: Hypothesis' default. The properties are sums, means and counts over
#: at most six turns, and their corner cases (one turn, no usage, every metric skipped) are
#: among the small examples Hypothesis draws first; the file's time is spent drawing pydantic
#: results (not waiting), which 200 examples a property doubled.
EXAMPLES = 100


@settings(max_examples=EXAMPLES, deadline=None)
@given(turn_lists())
def test_case_roll_up_adds_up(turn_results: list[TurnResult]) -> None:
    case = multi_turn_result("c", 0, turn_results)
    assert case.passed == all(t.passed for t in turn_results)
    assert case.test_input == INPUT_SEPARATOR.join(t.input for t in turn_results)
    assert case.agent_response == turn_results[-1].response
    assert case.tool_calls == [c for t in turn_results for c in t.tool_calls]
    assert case.execution_time_ms == sum(t.execution_time_ms for t in turn_results)
    assert len(case.errors) == sum(len(t.errors) for t in turn_results)
    assert all(e.startswith("[turn ") for e in case.errors)
    present = [t.token_usage for t in turn_results if t.token_usage is not None]
    if not present:
        assert case.token_usage is None
    else:
        assert case.token_usage is not None
        for field in TokenUsage.model_fields:
            assert getattr(case.token_usage, field) == sum(getattr(u, field) for u in present)


@settings(max_examples=EXAMPLES, deadline=None)
@given(turn_lists())
def test_metric_roll_up_is_the_mean_of_turns_that_ran_it(turn_results: list[TurnResult]) -> None:
    rolled = {m.metric_name: m for m in roll_up_metrics(turn_results)}
    ran: dict[str, list[MetricResult]] = {}
    for turn in turn_results:
        for metric in turn.metric_results:
            if not metric.skipped:
                ran.setdefault(metric.metric_name, []).append(metric)
    assert set(rolled) == set(ran)  # a metric every turn skipped is left out
    for name, results in ran.items():
        assert abs(rolled[name].score - sum(m.score for m in results) / len(results)) < 1e-9
        assert rolled[name].passed == all(m.passed for m in results)


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(turn_lists(), min_size=0, max_size=4))  # passing, failing, none: 4 is room
def test_summary_counts_cases_not_turns(cases: list[list[TurnResult]]) -> None:
    results = [multi_turn_result(f"c{i}", i, ts) for i, ts in enumerate(cases)]
    summary = summarize(results)
    assert summary.total_tests == len(cases)
    assert summary.passed + summary.failed == summary.total_tests
    assert summary.total_turns == sum(len(ts) for ts in cases)
    assert summary.passed_turns == sum(t.passed for ts in cases for t in ts)


def test_token_sum_is_element_wise() -> None:
    a = TokenUsage(prompt_tokens=1, completion_tokens=2, total_tokens=4, cache_read_tokens=5)
    b = TokenUsage(prompt_tokens=10, completion_tokens=20, total_tokens=30, cache_creation_tokens=7)
    total = sum_usage([a, None, b])
    assert total == TokenUsage(
        prompt_tokens=11,
        completion_tokens=22,
        total_tokens=34,
        cache_creation_tokens=7,
        cache_read_tokens=5,
    )


def test_single_turn_case_keeps_the_legacy_shape() -> None:
    turn = TurnResult(
        turn_index=0,
        input="q",
        response="4",
        ground_truth="4",
        tool_invocations=[ToolInvocation(name="add", args={"a": 2, "b": 2})],
        tool_calls=["add"],
        passed=True,
    )
    result = single_turn_result("t", 3, turn)
    assert result.turns is None
    assert result.ground_truth == "4"
    assert result.test_input == "q"
    assert result.passed


def test_a_turn_that_never_ran_fails_its_case() -> None:
    ok = TurnResult(turn_index=0, input="a", passed=True)
    skipped = TurnResult(turn_index=1, input="b", skipped=True, errors=["skipped: cancelled"])
    case = multi_turn_result("c", 0, [ok, skipped])
    assert not case.passed
    assert case.errors == ["[turn 1] skipped: cancelled"]
