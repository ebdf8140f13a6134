"""A run as comparing sees it: each turn's key, input and verdict per repeat, with metric
scores, and a failure reason computed only when one is shown. Built from a TestReport, from
a file's bytes (`holodeck-lsp compare`'s fast path: engine/comparison_decoding.py), or from a
report's parsed JSON (the stored history's flaky turns), where validating the
whole report first would be most of the time (bench/compare_speed.py: a 1,000-case report is
~19 MB, mostly tool calls and grader details comparing never reads). On that path a failing
turn alone is validated, when its reason is needed; a value of the wrong type raises
`ReportDataError`, and the caller reads the file the validating way instead.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from holodeck_lsp.engine.verdict_reasons import Block, failure_reasons, skip_reason
from holodeck_lsp.schema.comparison import SideOfTurn
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult

_R = TypeVar("_R")
#: (model or None, case label, turn index)
TurnKey = tuple[str | None, str, int]
#: (metric name, kind) -> score
Scores = dict[tuple[str, str], float]
#: How the grading marks a turn that was never sent (engine/turn_grading.py).
SKIPPED_PREFIX = "skipped: "


class ReportDataError(ValueError):
    """The parsed JSON is not shaped like a report; read it as a TestReport for the error."""


def input_hash(text: str) -> str:
    """A short fingerprint of a turn's input (12 hex digits: collisions are not a concern for
    the few thousand turns of a suite, and it keeps JSON output readable)."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:12]


def one_line(reasons: list[str]) -> str:
    """The first reason, on one line (errors may carry tracebacks or multi-line output)."""
    first = reasons[0] if reasons else "failed"
    line = " ".join(first.split())
    return line if len(line) <= 300 else line[:299] + "…"


@dataclass(slots=True)
class Attempt:
    """One repeat of a turn. `skipped` is "not measured": never sent, or errored (the
    provider could not answer), so an errored turn is never a regression."""

    passed: bool
    skipped: bool
    scores: Scores
    turn: Callable[[], TurnResult]  # the full turn, for its reasons (built when needed)
    #: Cost and speed (docs/reports.md, "Paired comparison"): the turn's time, the agent's
    #: tokens (None: not reported) and cost (None: no price).
    ms: int = 0
    tokens: int | None = None
    cost: float | None = None
    #: What the failure reason is made of, when known without building the turn (equal keys,
    #: equal reasons: engine/comparison_decoding.py); None: compare the reasons themselves.
    reason_key: object = None

    def reason(self) -> str:
        return one_line(failure_reasons(Block.of_turn(self.turn())))

    def skip_reason(self) -> str:
        turn = self.turn()
        if turn.errored:
            return "not measured (errored): " + one_line(list(turn.errors))
        return "not run: " + skip_reason(Block.of_turn(self.turn())).removeprefix(SKIPPED_PREFIX)


@dataclass(slots=True)
class Turn:
    """One side's repeats of one turn."""

    input: str
    attempts: list[Attempt]
    _reason: str | None = None
    _reason_known: bool = False

    def counts(self) -> tuple[int, int]:
        """(passes, runs) over the repeats that were sent."""
        runs = passes = 0
        for attempt in self.attempts:
            if not attempt.skipped:
                runs += 1
                passes += attempt.passed
        return passes, runs

    def first_failing(self) -> Attempt | None:
        return next((a for a in self.attempts if not a.skipped and not a.passed), None)

    def first_reason(self) -> str | None:
        """Why the first failing repeat failed (computed once: it may validate the turn)."""
        if not self._reason_known:
            failing = self.first_failing()
            self._reason = failing.reason() if failing is not None else None
            self._reason_known = True
        return self._reason

    def same_first_reason(self, other: Turn) -> bool:
        """Whether both sides' first failing repeats failed for the same reason; without
        building either turn when what their reasons are made of is equal (most turns failing
        on both sides fail alike)."""
        mine, theirs = self.first_failing(), other.first_failing()
        if (
            mine is not None
            and theirs is not None
            and mine.reason_key is not None
            and mine.reason_key == theirs.reason_key
        ):
            return True
        return self.first_reason() == other.first_reason()

    def side(self) -> SideOfTurn:
        passes, runs = self.counts()
        reason = self.first_reason()
        if not runs and self.attempts:
            reason = self.attempts[0].skip_reason()
        return SideOfTurn(
            passed=(passes == runs) if runs else None,
            passes=passes,
            runs=runs,
            reason=reason,
            input_hash=input_hash(self.input),
        )

    def mean_scores(self) -> Scores:
        """Each metric's mean score over the repeats that ran."""
        if len(self.attempts) == 1:  # no repeats: the common case, nothing to average
            only = self.attempts[0]
            return {} if only.skipped else only.scores
        sums: dict[tuple[str, str], list[float]] = {}
        for attempt in self.attempts:
            if not attempt.skipped:
                for key, score in attempt.scores.items():
                    sums.setdefault(key, []).append(score)
        return {key: sum(values) / len(values) for key, values in sums.items()}


@dataclass(frozen=True, slots=True)
class RunFacts:
    """What a side says about itself, beside its turns."""

    models: list[str]
    agent_path: str
    interrupted: bool
    run_id: str | None
    timestamp: str


# -- from a TestReport -----------------------------------------------------------------------


def facts_of_report(report: TestReport) -> RunFacts:
    models = list(dict.fromkeys(r.model for r in report.results if r.model)) or report.models
    return RunFacts(
        list(models), report.agent_config_path, report.interrupted, report.run_id, report.timestamp
    )


def turns_of_report(report: TestReport, *, ignore_model: bool) -> dict[TurnKey, Turn]:
    turns: dict[TurnKey, Turn] = {}
    for model, label, result in _labelled(report.results, ignore_model, _result_fields):
        for turn in _result_turns(result):
            measured = not (turn.skipped or turn.errored)
            usage = turn.token_usage
            attempt = Attempt(
                turn.passed,
                not measured,
                _scores(turn),
                _given(turn),
                turn.execution_time_ms,
                usage.total_tokens if usage is not None else None,
                turn.cost_usd if result.turns is not None else result.cost_usd,
            )
            _add(turns, (model, label, turn.turn_index), turn.input, attempt)
    return turns


def _given(turn: TurnResult) -> Callable[[], TurnResult]:
    return lambda: turn


def _result_fields(result: TestResult) -> tuple[str | None, str | None, int | None, int | None]:
    return result.model, result.test_name, result.test_index, result.repeat


def _result_turns(result: TestResult) -> list[TurnResult]:
    """The case's turns. A single-turn case keeps no `skipped` flag, and `turn_results()`
    takes "errors and no answer" for never sent — but a backend error is that too, and it must
    count as a failure (a broken backend is the regression a gate exists for). So only the
    grading's own skip mark (`skipped: cancelled`, …) makes a single-turn case not run."""
    turns = result.turn_results()
    if result.turns is not None:
        return turns
    never_sent = result.agent_response is None and any(
        error.startswith(SKIPPED_PREFIX) for error in result.errors
    )
    return [turn.model_copy(update={"skipped": never_sent}) for turn in turns]


def _scores(turn: TurnResult) -> Scores:
    return {
        (metric.metric_name, metric.kind): metric.score
        for metric in turn.metric_results
        if not metric.skipped and metric.error is None
    }


# -- from a report's parsed JSON -------------------------------------------------------------


def facts_of_data(data: Mapping[str, Any]) -> RunFacts:
    results = _list(data, "results")
    models = [_opt(r, "model", str) for r in results]
    named = list(dict.fromkeys(m for m in models if m)) or [
        str(m) for m in _list(data, "models", required=False)
    ]
    return RunFacts(
        named,
        _get(data, "agent_config_path", str),
        bool(_opt(data, "interrupted", bool)),
        _opt(data, "run_id", str),
        _opt(data, "timestamp", str) or "",
    )


def turns_of_data(data: Mapping[str, Any], *, ignore_model: bool) -> dict[TurnKey, Turn]:
    turns: dict[TurnKey, Turn] = {}
    results = _list(data, "results")
    for model, label, result in _labelled(results, ignore_model, _data_fields):
        raw_turns = result.get("turns")
        if raw_turns is None:
            key, text, attempt = _single_turn(result)
            _add(turns, (model, label, key), text, attempt)
            continue
        if not isinstance(raw_turns, list):
            raise ReportDataError("turns is not a list")
        for raw in raw_turns:
            _mapping(raw)
            attempt = Attempt(
                bool(_opt(raw, "passed", bool)),
                bool(_opt(raw, "skipped", bool)) or bool(_opt(raw, "errored", bool)),
                _data_scores(raw),
                _validated(raw),
                *_cost_and_speed(raw),
            )
            _add(
                turns,
                (model, label, _get(raw, "turn_index", int)),
                _get(raw, "input", str),
                attempt,
            )
    return turns


def _validated(raw: Mapping[str, Any]) -> Callable[[], TurnResult]:
    return lambda: TurnResult.model_validate(raw)


def _single_turn(result: Mapping[str, Any]) -> tuple[int, str, Attempt]:
    errors = [str(e) for e in _list(result, "errors", required=False)]
    never_sent = result.get("agent_response") is None and any(
        e.startswith(SKIPPED_PREFIX) for e in errors
    )

    def turn() -> TurnResult:
        [only] = TestResult.model_validate(result).turn_results()
        return only.model_copy(update={"skipped": never_sent})

    unmeasured = never_sent or bool(_opt(result, "errored", bool))
    attempt = Attempt(
        bool(_opt(result, "passed", bool)),
        unmeasured,
        _data_scores(result),
        turn,
        *_cost_and_speed(result),
    )
    return 0, _opt(result, "test_input", str) or "-", attempt


def _cost_and_speed(raw: Mapping[str, Any]) -> tuple[int, int | None, float | None]:
    """(time in ms, the agent's total tokens, cost) of a turn or a single-turn case."""
    ms = raw.get("execution_time_ms") or 0
    usage = raw.get("token_usage")
    tokens = usage.get("total_tokens") if isinstance(usage, dict) else None
    cost = raw.get("cost_usd")
    if type(ms) is not int or (tokens is not None and type(tokens) is not int):
        raise ReportDataError("a turn's time or tokens has the wrong type")
    if cost is not None and type(cost) not in (int, float):
        raise ReportDataError("a turn's cost_usd is not a number")
    return ms, tokens, None if cost is None else float(cost)


def _data_fields(
    result: Mapping[str, Any],
) -> tuple[str | None, str | None, int | None, int | None]:
    _mapping(result)
    return (
        _opt(result, "model", str),
        _opt(result, "test_name", str),
        _opt(result, "test_index", int),
        _opt(result, "repeat", int),
    )


def _data_scores(raw: Mapping[str, Any]) -> Scores:
    scores: Scores = {}
    # Written out rather than through _get/_opt: this runs for every metric of every turn.
    for metric in _list(raw, "metric_results", required=False):
        if not isinstance(metric, dict):
            raise ReportDataError("a metric result is not an object")
        get = metric.get
        if get("skipped") or get("error") is not None:
            continue
        score, name, kind = get("score", 0.0), get("metric_name"), get("kind") or "standard"
        if type(score) not in (float, int) or type(name) is not str or type(kind) is not str:
            raise ReportDataError("a metric result's score, name or kind has the wrong type")
        scores[(name, kind)] = float(score)
    return scores


def _get(data: Mapping[str, Any], key: str, kind: type) -> Any:
    value = data.get(key)
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise ReportDataError(f"{key} is not a {kind.__name__}")
    return value


def _opt(data: Mapping[str, Any], key: str, kind: type) -> Any:
    return None if data.get(key) is None else _get(data, key, kind)


def _list(data: Mapping[str, Any], key: str, *, required: bool = True) -> list[Any]:
    value = data.get(key)
    if value is None and not required:
        return []
    if not isinstance(value, list):
        raise ReportDataError(f"{key} is not a list")
    return value


def _mapping(value: Any) -> None:
    if not isinstance(value, Mapping):
        raise ReportDataError("a result or turn is not an object")


# -- shared ----------------------------------------------------------------------------------


def _labelled(
    results: list[_R],
    ignore_model: bool,
    fields: Callable[[_R], tuple[str | None, str | None, int | None, int | None]],
) -> Iterator[tuple[str | None, str, _R]]:
    """Each result with its model (None when models are ignored) and case label: its name,
    else `#position` — the test_index, else its place among its model's cases (repeats of a
    case share one place: counted on the first repeat only)."""
    places: dict[str | None, int] = {}
    for result in results:
        model, name, index, repeat = fields(result)
        if ignore_model:
            model = None
        place = places.get(model, 0)
        if repeat in (None, 1):
            places[model] = place + 1
        yield model, name or f"#{index if index is not None else place}", result


def _add(turns: dict[TurnKey, Turn], key: TurnKey, text: str, attempt: Attempt) -> None:
    entry = turns.get(key)
    if entry is None:
        turns[key] = Turn(text, [attempt])
    else:
        entry.attempts.append(attempt)
