"""Judged metrics in turn grading: which judge requests a turn makes, and grading a judged
metric from the verdicts the caller collected.

Grading is two steps so the runner can judge many turns at once (a judge call takes a
second; a 400-turn suite must not wait for them one by one): `turn_judge_requests` lists
what the turn asks, the runner gets the verdicts however it can (live calls, a recording),
then `grade_turn` receives them in a `Judging` and stays a pure function.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field

from holodeck_lsp.engine.evaluators.judges import (
    JudgedMetric,
    JudgeRequest,
    JudgeVerdict,
    TurnInputs,
    judge_request,
    judged_result,
    skip_judged,
    skipped,
)
from holodeck_lsp.schema.metric_catalogue import STANDARD_METRICS
from holodeck_lsp.schema.metrics import AnyMetric, CodeMetric, StandardMetric
from holodeck_lsp.schema.results import MetricResult, ToolInvocation

#: The judge model label (`provider:name`) of a metric, None when it has none.
JudgeModelOf = Callable[[JudgedMetric], str | None]


@dataclass(frozen=True, slots=True)
class Judging:
    """What grading needs to grade judged metrics: each metric's judge model and the
    verdicts gathered so far, by request key."""

    model_of: JudgeModelOf
    verdicts: Mapping[str, JudgeVerdict] = field(default_factory=dict)


def retrieved_chunks(
    invocations: Sequence[ToolInvocation], retrieval_tools: frozenset[str]
) -> list[str]:
    """The results of this turn's calls to retrieval tools (`is_retrieval: true` MCP
    servers), as upstream collects them: a text result as is, a list item by item. A
    server's tools are called `<server>-<tool>` on Semantic Kernel and `mcp__<server>__<tool>`
    on the Claude Agent SDK."""
    chunks: list[str] = []
    for call in invocations:
        if call.error is not None or not _from_retrieval_tool(call.name, retrieval_tools):
            continue
        result = call.result
        if isinstance(result, str) and result:
            chunks.append(result)
        elif isinstance(result, list):
            chunks += [str(item) for item in result if item is not None and str(item)]
    return chunks


def _from_retrieval_tool(name: str, tools: frozenset[str]) -> bool:
    return any(
        name == tool or name.startswith(f"{tool}-") or name.startswith(f"mcp__{tool}__")
        for tool in tools
    )


def judged(metric: AnyMetric) -> JudgedMetric | None:
    """`metric` when an LLM judge grades it."""
    if isinstance(metric, CodeMetric):
        return None
    if isinstance(metric, StandardMetric) and not STANDARD_METRICS[metric.metric].llm_judged:
        return None
    return metric


def request_or_result(
    metric: JudgedMetric, inputs: TurnInputs, judging: Judging
) -> JudgeRequest | MetricResult:
    model = judging.model_of(metric)
    if model is None:
        return skip_judged(metric)
    return judge_request(metric, inputs, model)


def turn_judge_requests(
    inputs: TurnInputs, metrics: Sequence[AnyMetric], judging: Judging
) -> list[JudgeRequest]:
    """The judge calls grading this turn needs (none for a turn that was not answered)."""
    requests: list[JudgeRequest] = []
    for metric in metrics:
        candidate = judged(metric)
        if candidate is None:
            continue
        request = request_or_result(candidate, inputs, judging)
        if isinstance(request, JudgeRequest):
            requests.append(request)
    return requests


def grade_judged(metric: JudgedMetric, inputs: TurnInputs, judging: Judging | None) -> MetricResult:
    """The result of one judged metric on one turn."""
    if judging is None:
        return skip_judged(metric) if metric.enabled else skipped(metric, "disabled")
    request = request_or_result(metric, inputs, judging)
    if isinstance(request, MetricResult):
        return request
    return judged_result(metric, request, judging.verdicts.get(request.key))
