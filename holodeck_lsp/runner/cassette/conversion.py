"""A run's results in cassette form (what re-grading replays), and reports made
comparable (a recorded run against its replay)."""

from __future__ import annotations

from typing import Any

from holodeck_lsp.runner.cassette.format import (
    STALE_PREFIXES,
    CassetteCase,
    CassetteJudgement,
    CassetteSimulation,
    CassetteToolCall,
    CassetteTurn,
    cassette_usage,
)
from holodeck_lsp.schema.results import MetricResult, TestReport, TestResult


def transcript_of(result: TestResult, index: int) -> CassetteCase:
    """A case's answers (responses, tool calls, usage, send errors) in cassette form, up to
    the first turn that was never sent: what re-grading the case replays. Matched by index
    (the name may have been edited since)."""
    turns: list[CassetteTurn] = []
    for turn in result.turn_results():
        if turn.skipped:
            break
        turns.append(
            CassetteTurn(
                input=turn.input,
                response=turn.response,
                tool_calls=[CassetteToolCall.recorded(c) for c in turn.tool_invocations],
                token_usage=cassette_usage(turn.token_usage),
                # A turn without a response failed to send: replay its first error.
                error=(turn.errors[0] if turn.errors else "no response")
                if turn.response is None
                else None,
                duration_ms=turn.execution_time_ms,
                judgements=judgements_of(turn.metric_results),
                tool_limit_reached=turn.tool_limit_reached,
            )
        )
    return CassetteCase(name=None, index=index, turns=turns, simulated_user=simulation_of(result))


def simulation_of(result: TestResult) -> CassetteSimulation | None:
    """A simulated-user case's simulator side (format version 7), with the verdicts its
    `at_end` checks were graded from; None for a scripted case."""
    simulation = result.simulation
    if simulation is None:
        return None
    at_end = simulation.at_end
    return CassetteSimulation(
        model=simulation.model,
        fingerprint=simulation.fingerprint,
        scripted_turns=simulation.scripted_turns,
        final_message=simulation.final_message,
        failure=simulation.failure,
        failure_detail=simulation.failure_detail,
        at_end_judgements=judgements_of(at_end.metric_results) if at_end is not None else [],
    )


def judgements_of(results: list[MetricResult]) -> list[CassetteJudgement]:
    """The verdicts a turn's judged metrics were graded from (those a judge answered, or
    failed to: not the skipped ones), so re-grading can reuse them."""
    judgements: list[CassetteJudgement] = []
    for result in results:
        if result.judge_input is None or result.skipped or result.model_used is None:
            continue
        if result.error is not None and result.error.startswith(STALE_PREFIXES):
            continue  # not a verdict: there was none to reuse
        judgements.append(
            CassetteJudgement(
                metric=result.metric_name,
                kind=result.kind,
                input=result.judge_input,
                model=result.model_used,
                score=result.score if result.error is None else None,
                reason=result.reasoning,
                error=result.error,
                token_usage=cassette_usage(result.judge_tokens),
                latency_ms=result.judge_latency_ms or 0,
            )
        )
    return judgements


# -- comparing reports ------------------------------------------------------------------------

#: Keys that differ between a recorded run and its replay by nature: when and how long, and
#: the id each is stored under in the run history.
VOLATILE_KEYS = frozenset(
    {
        "timestamp",
        "environment",
        "execution_time_ms",
        "total_duration_ms",
        "evaluation_time_ms",
        "run_id",
    }
)


def comparable(report: TestReport) -> dict[str, Any]:
    """The report without what a replay cannot reproduce: timestamps, the environment,
    durations (of turns, cases, metrics and tool calls) and prompt-cache token counts
    (format v1 records prompt, completion and total tokens only)."""
    data: dict[str, Any] = _strip(report.model_dump(mode="json"))
    return data


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        stripped = {k: _strip(v) for k, v in value.items() if k not in VOLATILE_KEYS}
        if "cache_read_tokens" in stripped:
            stripped.pop("cache_read_tokens")
            stripped.pop("cache_creation_tokens", None)
        if "args" in stripped and "duration_ms" in stripped:
            stripped.pop("duration_ms")  # a tool invocation's own duration
        return stripped
    if isinstance(value, list):
        return [_strip(item) for item in value]
    return value
