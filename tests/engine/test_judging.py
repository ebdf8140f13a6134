"""Judged metrics in the engine (pure): what each judge sees, the fingerprint that decides
whether a recorded verdict still applies, pass marks, and verdicts turned into results."""

from __future__ import annotations

from typing import Any

import pytest

from holodeck_lsp.engine.evaluators.judges import (
    JudgeRequest,
    JudgeVerdict,
    TurnInputs,
    judge_request,
    judged_result,
)
from holodeck_lsp.engine.judging import Judging
from holodeck_lsp.engine.rollup import multi_turn_result, summarize
from holodeck_lsp.engine.turn_grading import TurnOutcome, TurnSpec, grade_turn
from holodeck_lsp.schema.metrics import GEvalMetric, RAGMetric, StandardMetric
from holodeck_lsp.schema.results import TokenUsage

TURN = TurnInputs("revenue 2009?", "206588", "206588", ("Revenue in 2009 was 206588.",))
MODEL = "openai:judge-1"


def geval(**fields: Any) -> GEvalMetric:
    return GEvalMetric.model_validate({"name": "Direct", "criteria": "No hedging.", **fields})


def request(metric: Any, turn: TurnInputs = TURN) -> JudgeRequest:
    found = judge_request(metric, turn, MODEL)
    assert isinstance(found, JudgeRequest), found
    return found


def test_geval_sees_only_the_fields_it_lists() -> None:
    seen = request(geval())
    assert seen.evaluation_params == ("actual_output",)
    assert (seen.expected_output, seen.retrieval_context) == (None, None)
    full = request(geval(evaluation_params=["input", "actual_output", "expected_output",
                                            "retrieval_context"]))  # fmt: skip
    assert full.expected_output == "206588" and full.retrieval_context == TURN.retrieval_context


@pytest.mark.parametrize(
    ("kind", "reads_context", "reads_truth"),
    [
        ("faithfulness", True, False),
        ("answer_relevancy", False, False),
        ("contextual_precision", True, True),
        ("contextual_recall", True, True),
        ("contextual_relevancy", True, False),
    ],
)
def test_each_rag_metric_sees_what_upstream_passes(
    kind: str, reads_context: bool, reads_truth: bool
) -> None:
    seen = request(RAGMetric.model_validate({"metric_type": kind}))
    assert (seen.retrieval_context is not None) is reads_context
    assert (seen.expected_output is not None) is reads_truth
    assert seen.input == TURN.input and seen.actual_output == "206588"


def test_a_rag_metric_without_its_fields_is_skipped() -> None:
    bare = TurnInputs("q", "a", None, None)
    skipped = judge_request(RAGMetric.model_validate({"metric_type": "faithfulness"}), bare, MODEL)
    assert not isinstance(skipped, JudgeRequest)
    assert skipped.skipped and skipped.reasoning == "no retrieval_context on this turn"
    recall = RAGMetric.model_validate({"metric_type": "contextual_recall"})
    no_truth = judge_request(recall, TurnInputs("q", "a", None, ("p",)), MODEL)
    assert not isinstance(no_truth, JudgeRequest) and no_truth.skipped


def test_the_fingerprint_changes_with_what_the_judge_sees_not_the_threshold() -> None:
    base = request(geval()).key
    assert request(geval(threshold=0.9)).key == base
    assert request(geval(criteria="Other.")).key != base
    assert request(geval(evaluation_steps=["Read it."])).key != base
    assert request(geval(), TurnInputs("revenue 2009?", "206589", None, None)).key != base
    other_judge = judge_request(geval(), TURN, "ollama:qwen2.5:7b")
    assert isinstance(other_judge, JudgeRequest) and other_judge.key != base


@pytest.mark.parametrize(
    ("metric", "default"),
    [
        (geval(), 0.5),
        (RAGMetric.model_validate({"metric_type": "faithfulness"}), 0.5),
        (StandardMetric.model_validate({"metric": "relevance"}), 0.6),
    ],
)
def test_default_pass_marks(metric: Any, default: float) -> None:
    seen = request(metric)
    assert judged_result(metric, seen, JudgeVerdict(score=default)).passed is True
    below = judged_result(metric, seen, JudgeVerdict(score=default - 0.01))
    assert below.passed is False and below.threshold == default and below.error is None


def test_a_verdict_becomes_the_result_with_the_judge_and_its_cost() -> None:
    metric = geval(threshold=0.7)
    usage = TokenUsage(prompt_tokens=40, completion_tokens=10, total_tokens=50)
    verdict = JudgeVerdict(score=0.8, reason="Plain.", model=MODEL, tokens=usage, latency_ms=210,
                           calls=1)  # fmt: skip
    result = judged_result(metric, request(metric), verdict)
    assert (result.passed, result.score, result.reasoning) == (True, 0.8, "Plain.")
    assert (result.model_used, result.judge_tokens, result.judge_latency_ms) == (MODEL, usage, 210)


@pytest.mark.parametrize(
    ("verdict", "error"),
    [
        (JudgeVerdict(error="the judge answered HTTP 500: boom"), "the judge answered HTTP 500"),
        (JudgeVerdict(score=1.7), "outside 0..1"),
        (JudgeVerdict(), "no score"),
        (JudgeVerdict(stale="judge recording is stale: …"), "judge recording is stale"),
    ],
)
def test_a_failed_judgement_fails_the_metric_with_the_reason(
    verdict: JudgeVerdict, error: str
) -> None:
    for fail_on_error in (True, False):  # upstream: an erroring judged metric fails either way
        metric = geval(fail_on_error=fail_on_error)
        result = judged_result(metric, request(metric), verdict)
        assert result.passed is False and result.score == 0.0
        assert result.error is not None and error in result.error


def test_include_reason_false_drops_the_reason() -> None:
    metric = RAGMetric.model_validate({"metric_type": "faithfulness", "include_reason": False})
    result = judged_result(metric, request(metric), JudgeVerdict(score=1.0, reason="why"))
    assert result.passed is True and result.reasoning is None


def test_a_turn_grades_its_judged_metrics_from_the_verdicts_only() -> None:
    metrics = [geval(), StandardMetric.model_validate({"metric": "equality"})]
    spec = TurnSpec(index=0, input="q", ground_truth="25587")
    outcome = TurnOutcome(response="25587")
    judging = Judging(model_of=lambda metric: MODEL)
    unjudged = grade_turn(spec, outcome, metrics, case_name="c", judging=judging)
    assert unjudged.metric_results[0].skipped and unjudged.passed  # skipped never fails
    key = request(geval(), TurnInputs("q", "25587", "25587", None)).key
    failing = Judging(model_of=lambda metric: MODEL, verdicts={key: JudgeVerdict(score=0.1)})
    graded = grade_turn(spec, outcome, metrics, case_name="c", judging=failing)
    assert graded.metric_results[0].passed is False and graded.metric_results[1].passed is True
    assert graded.passed is False


def _graded(response: str, verdict: JudgeVerdict, ground_truth: str = "25587") -> Any:
    metrics = [geval(), StandardMetric.model_validate({"metric": "equality"})]
    spec = TurnSpec(index=0, input="q", ground_truth=ground_truth)
    key = request(geval(), TurnInputs("q", response, ground_truth, None)).key
    judging = Judging(model_of=lambda metric: MODEL, verdicts={key: verdict})
    return grade_turn(spec, TurnOutcome(response=response), metrics, case_name="c", judging=judging)


UNHEARD = JudgeVerdict(error="the judge openai:judge-1 answered HTTP 503: busy", errored=True)


def test_a_judge_provider_error_leaves_a_turn_failing_on_nothing_else_errored() -> None:
    turn = _graded("25587", UNHEARD)
    judged_metric, equality = turn.metric_results
    assert judged_metric.errored and judged_metric.passed is False and equality.passed is True
    assert turn.errored and not turn.passed
    assert turn.errors == ["metric 'Direct' not measured: " + (UNHEARD.error or "")]
    case = multi_turn_result("c", 0, [turn])
    assert case.errored and summarize([case]).errored == 1
    assert case.metric_results[0].errored and summarize([case]).average_scores == {"equality": 1.0}


def test_a_turn_failing_on_its_own_merits_stays_failed_beside_an_errored_judge() -> None:
    wrong = _graded("25586", UNHEARD)  # equality fails: a verdict, whatever the judge did
    assert wrong.metric_results[0].errored and not wrong.errored and not wrong.passed
    assert not multi_turn_result("c", 0, [wrong]).errored
    low = _graded("25587", JudgeVerdict(score=0.1))  # the judge answered: below threshold
    assert not low.errored and not low.passed


@pytest.mark.parametrize(
    "verdict",
    [
        JudgeVerdict(error="the judge openai:judge-1 answered HTTP 400: bad"),
        JudgeVerdict(stale="judge recording is stale: …", errored=True),
    ],
)
def test_only_a_provider_error_is_errored(verdict: JudgeVerdict) -> None:
    turn = _graded("25587", verdict)
    assert not turn.metric_results[0].errored and not turn.errored and not turn.passed
