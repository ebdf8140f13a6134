"""A graded turn as `gen_ai.evaluation.result` events — one per metric, one for the expected
tools when the turn asserts them, one for the turn's verdict — and the error status of
errored and skipped turns and cases (docs/observability.md, "Evaluation events").

Pure apart from building OpenTelemetry's `Status`.
"""

from __future__ import annotations

from typing import Any

from opentelemetry.trace import Status, StatusCode

from holodeck_lsp.runner.tracing import genai
from holodeck_lsp.runner.tracing.settings import TraceSettings
from holodeck_lsp.schema.results import MetricResult, TestResult, TurnResult

#: The evaluation names of the verdicts that are not a metric's.
TURN_VERDICT = "turn_verdict"
EXPECTED_TOOLS = "expected_tools"


def evaluation_events(
    turn: TurnResult, settings: TraceSettings
) -> list[tuple[str, dict[str, Any]]]:
    events = [(genai.EVALUATION_EVENT, _metric(metric, settings)) for metric in turn.metric_results]
    if turn.tools_matched is not None and not turn.skipped:
        tools: dict[str, Any] = {
            genai.EVALUATION_NAME: EXPECTED_TOOLS,
            genai.EVALUATION_SCORE: 1.0 if turn.tools_matched else 0.0,
            genai.EVALUATION_LABEL: "passed" if turn.tools_matched else "failed",
            genai.EVALUATION_EXPLANATION: "called: " + (", ".join(turn.tool_calls) or "no tool"),
        }
        events.append((genai.EVALUATION_EVENT, tools))
    label = turn_label(turn)
    verdict: dict[str, Any] = {
        genai.EVALUATION_NAME: TURN_VERDICT,
        genai.EVALUATION_LABEL: label,
        genai.TURN_INDEX: turn.turn_index,
    }
    if label in ("passed", "failed"):
        verdict[genai.EVALUATION_SCORE] = 1.0 if turn.passed else 0.0
    if turn.errors:
        verdict[genai.EVALUATION_EXPLANATION] = "; ".join(turn.errors)
    if label in ("errored", "skipped"):
        verdict[genai.ERROR_TYPE] = label
    events.append((genai.EVALUATION_EVENT, verdict))
    return events


def turn_label(turn: TurnResult) -> str:
    if turn.skipped:
        return "skipped"
    if turn.errored:
        return "errored"
    return "passed" if turn.passed else "failed"


def turn_status(turn: TurnResult) -> tuple[Status, str | None]:
    """ERROR for a turn that was skipped, errored (the provider's) or could not be sent."""
    why = "; ".join(turn.errors) or None
    if turn.skipped:
        return Status(StatusCode.ERROR, why or "skipped"), "skipped"
    if turn.errored:
        return Status(StatusCode.ERROR, why or "errored"), "provider_error"
    if turn.response is None and turn.errors:
        return Status(StatusCode.ERROR, why), "error"
    return Status(StatusCode.UNSET), None


def case_status(result: TestResult) -> tuple[Status, str | None]:
    turns = result.turns or []
    if result.errored:
        return Status(StatusCode.ERROR, "; ".join(result.errors) or "errored"), "errored"
    if turns and all(turn.skipped for turn in turns):
        return Status(StatusCode.ERROR, "; ".join(result.errors) or "skipped"), "skipped"
    return Status(StatusCode.UNSET), None


def _metric(metric: MetricResult, settings: TraceSettings) -> dict[str, Any]:
    attributes: dict[str, Any] = {
        genai.EVALUATION_NAME: metric.metric_name,
        genai.EVALUATION_LABEL: _metric_label(metric),
        "holodeck.evaluation.kind": metric.kind,
    }
    if not metric.skipped and not metric.errored:
        attributes[genai.EVALUATION_SCORE] = float(metric.score)
    if metric.threshold is not None:
        attributes["holodeck.evaluation.threshold"] = float(metric.threshold)
    explanation = metric.error if metric.errored and metric.error else metric.reasoning
    if explanation:
        attributes[genai.EVALUATION_EXPLANATION] = explanation
    if metric.errored:
        attributes[genai.ERROR_TYPE] = "evaluation_error"
    if metric.model_used:
        attributes[genai.REQUEST_MODEL] = metric.model_used
    if settings.capture_evaluation_content and metric.judge_input:
        attributes["holodeck.evaluation.input"] = metric.judge_input
    return attributes


def _metric_label(metric: MetricResult) -> str:
    if metric.errored:
        return "errored"
    if metric.skipped or metric.passed is None:
        return "skipped"
    return "passed" if metric.passed else "failed"
