"""LLM-judged metrics — `groundedness`, `relevance`, `coherence`, `fluency`, every `geval`
and every `rag` metric — graded from a judge's verdict.

The engine never calls a model: `judge_request` says exactly what the judge must see for
one metric on one turn (the fields upstream HoloDeck's evaluators pass, docs/grading.md),
the runner asks a judge (live, or from a recording) and hands the verdicts back, and
`judged_result` turns a verdict into the metric's result: score in 0..1, `passed` = score
≥ threshold, the judge's reason kept. No verdict for a request means nobody judged it: the
metric is skipped (never passed, never failed).
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass

from holodeck_lsp.schema.metric_catalogue import (
    GEVAL_THRESHOLD,
    JUDGED_STANDARD_THRESHOLD,
    RAG_METRICS,
    STANDARD_METRICS,
)
from holodeck_lsp.schema.metrics import GEvalMetric, RAGMetric, StandardMetric
from holodeck_lsp.schema.results import MetricResult, TokenUsage

JudgedMetric = StandardMetric | GEvalMetric | RAGMetric

NOT_RUN = "needs an LLM judge, and no judge was given to this grading"


def metric_name(metric: JudgedMetric) -> str:
    """The name a result carries: the standard metric, the G-Eval `name`, the RAG type."""
    if isinstance(metric, StandardMetric):
        return metric.metric
    if isinstance(metric, GEvalMetric):
        return metric.name
    return metric.metric_type.value


def _what(metric: JudgedMetric) -> str:
    name = metric_name(metric)
    if isinstance(metric, GEvalMetric):
        return f'G-Eval metric "{name}"'
    if isinstance(metric, RAGMetric):
        return f"RAG metric {name}"
    return name


def pass_mark(metric: JudgedMetric) -> float:
    """The metric's `threshold`, else upstream's default for its kind (G-Eval 0.5, RAG's
    model default 0.5, the standard judged metrics 0.6 = 3 on their 1–5 scale)."""
    if metric.threshold is not None:
        return metric.threshold
    if isinstance(metric, GEvalMetric):
        return GEVAL_THRESHOLD
    return JUDGED_STANDARD_THRESHOLD


@dataclass(frozen=True, slots=True)
class JudgeRequest:
    """What one judge sees for one metric on one turn. `kind` and `metric` pick the judge
    (`geval`, a RAG metric type, or a standard judged metric); the other fields are its
    inputs, None when the metric does not read them."""

    kind: str
    metric: str
    #: The judge model, `provider:name` (a different judge is a different judgement).
    model: str
    actual_output: str
    input: str | None = None
    expected_output: str | None = None
    retrieval_context: tuple[str, ...] | None = None
    criteria: str | None = None
    evaluation_steps: tuple[str, ...] | None = None
    evaluation_params: tuple[str, ...] | None = None
    strict_mode: bool = False
    include_reason: bool = True
    #: Seconds one judge call may take (None: the runner's default).
    timeout: float | None = None
    #: Attempts after a failed judge call (`retry_on_failure`).
    retries: int = 0
    #: Replaces our prompt for the standard judged metrics (`custom_prompt`).
    custom_prompt: str | None = None

    @property
    def key(self) -> str:
        """Fingerprint of everything that decides the judgement (not the threshold, which
        is applied afterwards, nor timeouts): equal keys, same verdict."""
        decided = {
            "kind": self.kind,
            "metric": self.metric,
            "model": self.model,
            "actual_output": self.actual_output,
            "input": self.input,
            "expected_output": self.expected_output,
            "retrieval_context": self.retrieval_context,
            "criteria": self.criteria,
            "evaluation_steps": self.evaluation_steps,
            "evaluation_params": self.evaluation_params,
            "strict_mode": self.strict_mode,
            "include_reason": self.include_reason,
            "custom_prompt": self.custom_prompt,
        }
        text = json.dumps(decided, sort_keys=True, ensure_ascii=False)
        return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:32]


@dataclass(frozen=True, slots=True)
class JudgeVerdict:
    """A judge's answer to one request. `score` is already on 0..1. `error`: the judge
    failed (HTTP error, timeout, malformed reply, refusal, score out of range) — the
    metric fails with it. `skip`: nobody judged (no recording for this input and no judge
    may be called) — the metric is skipped with that reason. `stale`: a recording exists
    but for other inputs — the metric fails, saying so, rather than reuse a score that no
    longer applies. `errored`: the `error` was the judge's provider's (429 after the retry
    budget, 5xx, connection lost, HTTP timeout) — the metric is not measured, and a turn
    failing on nothing else is errored, not failed."""

    score: float | None = None
    reason: str | None = None
    error: str | None = None
    errored: bool = False
    skip: str | None = None
    stale: str | None = None
    model: str | None = None
    tokens: TokenUsage | None = None
    latency_ms: int = 0
    calls: int = 0


@dataclass(frozen=True, slots=True)
class TurnInputs:
    """The turn fields a judge may see."""

    input: str
    response: str | None
    ground_truth: str | None
    retrieval_context: tuple[str, ...] | None


def _standard_fields(metric: StandardMetric, turn: TurnInputs) -> dict[str, object]:
    # Upstream's Azure evaluators: groundedness reads the response and its context (the
    # turn's retrieval_context here), relevance / coherence / fluency the query and
    # response.
    fields: dict[str, object] = {"input": turn.input}
    if STANDARD_METRICS[metric.metric].needs_retrieval_context:
        fields["retrieval_context"] = turn.retrieval_context
    return fields


def judge_request(
    metric: JudgedMetric, turn: TurnInputs, model: str
) -> JudgeRequest | MetricResult:
    """The request for `metric` on this turn, or the result when it cannot be judged:
    disabled, no response, or a field it needs is missing (skipped, as upstream skips a
    metric whose ground truth or retrieval context the turn lacks)."""
    name = metric_name(metric)
    if not metric.enabled:
        return skipped(metric, "disabled")
    if turn.response is None:
        return MetricResult(
            metric_name=name,
            kind=metric.type,
            threshold=pass_mark(metric),
            passed=False,
            error="no response",
        )
    timeout = getattr(metric, "timeout_ms", None)
    common: dict[str, object] = {
        "kind": metric.type if not isinstance(metric, StandardMetric) else "standard",
        "metric": name,
        "model": model,
        "actual_output": turn.response,
        "timeout": timeout / 1000 if timeout else None,
        "retries": getattr(metric, "retry_on_failure", None) or 0,
    }
    if isinstance(metric, GEvalMetric):
        params = tuple(metric.evaluation_params)
        if "expected_output" in params and turn.ground_truth is None:
            return skipped(metric, "no ground_truth on this turn (evaluation_params lists it)")
        if "retrieval_context" in params and turn.retrieval_context is None:
            return skipped(metric, "no retrieval_context on this turn (evaluation_params lists it)")
        return JudgeRequest(
            **common,  # type: ignore[arg-type]
            input=turn.input,
            expected_output=turn.ground_truth if "expected_output" in params else None,
            retrieval_context=turn.retrieval_context if "retrieval_context" in params else None,
            criteria=metric.criteria,
            evaluation_steps=tuple(metric.evaluation_steps) if metric.evaluation_steps else None,
            evaluation_params=params,
            strict_mode=metric.strict_mode,
        )
    if isinstance(metric, RAGMetric):
        spec = RAG_METRICS[metric.metric_type.value]
        if spec.needs_retrieval_context and not turn.retrieval_context:
            return skipped(metric, "no retrieval_context on this turn")
        if spec.needs_ground_truth and turn.ground_truth is None:
            return skipped(metric, "no ground_truth on this turn")
        return JudgeRequest(
            **common,  # type: ignore[arg-type]
            input=turn.input,
            expected_output=turn.ground_truth if spec.needs_ground_truth else None,
            retrieval_context=turn.retrieval_context if spec.needs_retrieval_context else None,
            include_reason=metric.include_reason,
        )
    fields = _standard_fields(metric, turn)
    if "retrieval_context" in fields and not turn.retrieval_context:
        return skipped(metric, "no retrieval_context on this turn (groundedness needs it)")
    return JudgeRequest(
        **common,  # type: ignore[arg-type]
        custom_prompt=metric.custom_prompt,
        **fields,  # type: ignore[arg-type]
    )


def judged_result(
    metric: JudgedMetric, request: JudgeRequest, verdict: JudgeVerdict | None
) -> MetricResult:
    """The metric's result from the judge's verdict (None: nobody judged it)."""
    threshold = pass_mark(metric)
    result = MetricResult(
        metric_name=request.metric,
        kind=metric.type,
        threshold=threshold,
        model_used=request.model,
        judge_input=request.key,
    )
    if verdict is None:
        result.skipped = True
        result.reasoning = f"{_what(metric)} {NOT_RUN}"
        return result
    result.judge_tokens = verdict.tokens
    result.judge_latency_ms = verdict.latency_ms if verdict.calls else None
    if verdict.model:
        result.model_used = verdict.model
    if verdict.skip is not None:
        result.skipped = True
        result.reasoning = verdict.skip
        return result
    failure = verdict.stale or verdict.error
    if failure is None and verdict.score is None:
        failure = "the judge gave no score"
    if failure is None and verdict.score is not None and not 0.0 <= verdict.score <= 1.0:
        failure = f"the judge's score {verdict.score} is outside 0..1"
    if failure is not None:
        result.passed = False
        result.error = failure
        # Only a provider's refusal is weather; a stale recording or a bad reply is a verdict.
        result.errored = verdict.errored and verdict.stale is None and verdict.error is not None
        result.reasoning = verdict.reason
        return result
    assert verdict.score is not None
    result.score = verdict.score
    result.passed = verdict.score >= threshold
    keep_reason = not isinstance(metric, RAGMetric) or metric.include_reason
    result.reasoning = verdict.reason if keep_reason else None
    return result


def skipped(metric: JudgedMetric, reason: str) -> MetricResult:
    return MetricResult(
        metric_name=metric_name(metric),
        kind=metric.type,
        threshold=pass_mark(metric),
        passed=None,
        skipped=True,
        reasoning=reason,
    )


def skip_judged(metric: JudgedMetric) -> MetricResult:
    """The skipped result of an LLM-judged metric graded without a judge."""
    return skipped(metric, f"{_what(metric)} {NOT_RUN}")
