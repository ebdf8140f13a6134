"""A report's JSON decoded to just what comparing reads — the fast path of `holodeck-lsp
compare` (docs/benchmarks.md, "Comparing two 10,000-case runs with statistics (issue 40)").

A report is mostly what comparing never looks at: tool calls and invocations, judges' tokens
and inputs, grader details, expected tools. Parsing all of it into Python objects was half of
comparing two 10,000-case runs; msgspec decodes the bytes straight into the small structs
below and skips every other field without building it. The structs accept what the dict
fast path of engine/comparison_rows.py accepted (a missing or null field is its default);
anything else raises `ReportDataError`, and the caller reads the file the validating way.

A failing turn's reason is built from the fields kept for it (errors, tool assertions,
metrics: engine/verdict_reasons.py reads nothing else), only when it is shown.
"""

from __future__ import annotations

from collections.abc import Callable

import msgspec

from holodeck_lsp.engine.comparison_rows import (
    SKIPPED_PREFIX,
    Attempt,
    ReportDataError,
    RunFacts,
    Scores,
    Turn,
    TurnKey,
    _add,
    _labelled,
)
from holodeck_lsp.schema.results import TestResult, TurnResult


class _Usage(msgspec.Struct, omit_defaults=True):
    total_tokens: int | None = None


class _Metric(msgspec.Struct, omit_defaults=True):
    """What a metric's score and its failure reason read."""

    metric_name: str
    kind: str | None = None
    score: float = 0.0
    threshold: float | None = None
    passed: bool | None = None
    skipped: bool | None = None
    error: str | None = None
    reasoning: str | None = None


class _ToolAssertion(msgspec.Struct, omit_defaults=True):
    tool: str
    unmatched_reason: str | None = None


class _Exchange(msgspec.Struct, omit_defaults=True, kw_only=True):
    """The fields a turn and a single-turn case share: verdict, scores, cost and speed, and
    what a failure reason is made of."""

    passed: bool | None = None
    errored: bool | None = None
    execution_time_ms: int | None = None
    token_usage: _Usage | None = None
    cost_usd: float | None = None
    metric_results: list[_Metric] | None = None
    errors: list[str] | None = None
    arg_match_details: list[_ToolAssertion] | None = None
    tools_matched: bool | None = None


class _Turn(_Exchange, kw_only=True):
    turn_index: int
    input: str
    skipped: bool | None = None


class _Result(_Exchange, kw_only=True):
    test_name: str | None = None
    test_index: int | None = None
    model: str | None = None
    repeat: int | None = None
    test_input: str | None = None
    agent_response: str | None = None
    turns: list[_Turn] | None = None


class ReportOutline(msgspec.Struct, kw_only=True):
    """A report as comparing reads it."""

    agent_config_path: str
    results: list[_Result]
    models: list[str] | None = None
    interrupted: bool | None = None
    run_id: str | None = None
    timestamp: str | None = None


_DECODER = msgspec.json.Decoder(ReportOutline)


def decode_report(raw: bytes) -> ReportOutline:
    """The outline of a report file's bytes; ReportDataError when they are not a report's
    JSON (then read the file as a TestReport, whose reader says what is wrong)."""
    try:
        return _DECODER.decode(raw)
    except msgspec.MsgspecError as error:
        raise ReportDataError(f"not a report's JSON: {error}") from None


def facts_of_outline(report: ReportOutline) -> RunFacts:
    named = list(dict.fromkeys(r.model for r in report.results if r.model))
    return RunFacts(
        named or list(report.models or []),
        report.agent_config_path,
        bool(report.interrupted),
        report.run_id,
        report.timestamp or "",
    )


def turns_of_outline(report: ReportOutline, *, ignore_model: bool) -> dict[TurnKey, Turn]:
    turns: dict[TurnKey, Turn] = {}
    for model, label, result in _labelled(report.results, ignore_model, _fields):
        if result.turns is None:
            _add(turns, (model, label, 0), result.test_input or "-", _single_turn(result))
            continue
        for turn in result.turns:
            attempt = Attempt(
                bool(turn.passed),
                bool(turn.skipped) or bool(turn.errored),
                _scores(turn),
                _reasons_turn(turn),
                *_cost_and_speed(turn),
                reason_key=_reason_key(turn),
            )
            _add(turns, (model, label, turn.turn_index), turn.input, attempt)
    return turns


def _fields(result: _Result) -> tuple[str | None, str | None, int | None, int | None]:
    return result.model, result.test_name, result.test_index, result.repeat


def _reasons_turn(turn: _Turn) -> Callable[[], TurnResult]:
    return lambda: TurnResult.model_validate(msgspec.to_builtins(turn))


def _single_turn(result: _Result) -> Attempt:
    """A single-turn case as its turn 0 (comparison_rows.py says when it was never sent)."""
    never_sent = result.agent_response is None and any(
        e.startswith(SKIPPED_PREFIX) for e in result.errors or ()
    )

    def turn() -> TurnResult:
        [only] = TestResult.model_validate(msgspec.to_builtins(result)).turn_results()
        return only.model_copy(update={"skipped": never_sent})

    return Attempt(
        bool(result.passed),
        never_sent or bool(result.errored),
        _scores(result),
        turn,
        *_cost_and_speed(result),
        reason_key=_reason_key(result),
    )


def _reason_key(exchange: _Exchange) -> tuple[object, ...]:
    """All that engine/verdict_reasons.py's `failure_reasons` reads of a turn: equal keys,
    equal reasons."""
    return (
        exchange.passed,
        exchange.errors,
        exchange.arg_match_details,
        exchange.tools_matched,
        exchange.metric_results,
    )


def _cost_and_speed(exchange: _Exchange) -> tuple[int, int | None, float | None]:
    usage = exchange.token_usage
    return (
        exchange.execution_time_ms or 0,
        usage.total_tokens if usage is not None else None,
        exchange.cost_usd,
    )


def _scores(exchange: _Exchange) -> Scores:
    return {
        (metric.metric_name, metric.kind or "standard"): metric.score
        for metric in exchange.metric_results or ()
        if not metric.skipped and metric.error is None
    }
