"""`type: code` metrics: calling a user's grader on one turn and recording what it returned.

The contract (research-032 §5, FR-019..FR-022): a grader is a plain synchronous callable that
takes one `GraderContext` and returns a `GraderResult`, a bare `bool` or a bare number. Whatever
goes wrong inside the grader (an exception, a wrong return value, a hang) fails that turn's
metric only, with the reason in `MetricResult.error`; it never stops the run (SC-009) — unless
the metric sets `fail_on_error: true`: then a grader that raises (or times out) stops its case,
as upstream's does (`stops_the_case`; the case runner skips the remaining turns).

Graders written for upstream HoloDeck run unchanged: a result is read by its fields (`score`,
`passed`, `reason`, `details`), so upstream's own `GraderResult` type is accepted as ours is,
and the context has upstream's attribute names.

Trust model. Graders are user Python code that runs in this process with its full privileges:
no sandbox. Running a suite means trusting its graders, exactly like trusting its tool plugins.
What we do guarantee is that a *well-behaved* grader cannot change the run by accident: the
context holds deep copies, frozen where Python allows, so a grader cannot alter the session, the
stored results or what later turns see (a determined grader can still reach anything in the
process, e.g. through `gc`; that is the trust model above, not a bug).

Time limit. A grader runs in a daemon worker thread and we stop waiting after `timeout`
seconds. Python cannot kill a thread: a grader that never returns keeps running in the
background (and keeps its CPU and memory) until it finishes or the process exits; its result is
discarded. Being a daemon thread, it does not keep the process alive at exit.

Loading. This module never imports user code: it is handed the grader callable. Finding and
importing `module:callable` (sys.path, import cache, same-name check) is the runner's job
(`runner.grader_import`), as is reading the time limit from the environment.
"""

from __future__ import annotations

import contextvars
import copy
import json
import math
import numbers
import threading
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, NoReturn

from pydantic import BaseModel, ConfigDict

from holodeck_lsp.schema.metrics import CodeMetric
from holodeck_lsp.schema.results import MetricResult, ToolInvocation

__all__ = [
    "DEFAULT_GRADER_TIMEOUT",
    "DEFAULT_THRESHOLD",
    "FrozenDict",
    "FrozenList",
    "FrozenToolInvocation",
    "GraderContext",
    "GraderResult",
    "run_code_grader",
    "stops_the_case",
]

#: Seconds a grader may run unless the caller says otherwise (the runner reads
#: `HOLODECK_GRADER_TIMEOUT`, see `runner.grader_loading.default_grader_timeout`).
DEFAULT_GRADER_TIMEOUT = 30.0
#: Pass mark for a bare score when the metric sets no `threshold`.
DEFAULT_THRESHOLD = 0.5

Grader = Callable[["GraderContext"], object]


# --------------------------------------------------------------------------------------------
# Read-only copies
# --------------------------------------------------------------------------------------------


class FrozenDict(dict[Any, Any]):
    """A `dict` that refuses changes. Being a real `dict`, it still works with `json.dumps`,
    pydantic serialisation and `==` against plain dicts; it holds copies, so even bypassing
    the guard (`dict.__setitem__(d, ...)`) changes nothing outside the grader."""

    __slots__ = ()

    def _read_only(self, *_args: object, **_kwargs: object) -> NoReturn:
        raise TypeError("the grader context is read-only")

    __setitem__ = _read_only
    __delitem__ = _read_only
    __ior__ = _read_only
    clear = _read_only
    pop = _read_only
    popitem = _read_only
    setdefault = _read_only
    update = _read_only

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))


class FrozenList(list[Any]):
    """A `list` that refuses changes (compares equal to plain lists, serialises as one)."""

    __slots__ = ()

    def _read_only(self, *_args: object, **_kwargs: object) -> NoReturn:
        raise TypeError("the grader context is read-only")

    __setitem__ = _read_only
    __delitem__ = _read_only
    __iadd__ = _read_only
    __imul__ = _read_only
    append = _read_only
    extend = _read_only
    insert = _read_only
    pop = _read_only
    remove = _read_only
    clear = _read_only
    sort = _read_only
    reverse = _read_only

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))


class FrozenToolInvocation(ToolInvocation):
    """A `ToolInvocation` whose fields cannot be reassigned and whose `args` / `result` are
    frozen copies (mappings become `FrozenDict`, lists `FrozenList`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @classmethod
    def of(cls, invocation: ToolInvocation) -> FrozenToolInvocation:
        # model_construct: validation would turn the frozen containers back into dicts/lists.
        return cls.model_construct(
            _fields_set=set(invocation.model_fields_set),
            name=invocation.name,
            args=_freeze(invocation.args),
            result=_freeze(invocation.result),
            duration_ms=invocation.duration_ms,
            error=invocation.error,
        )

    @property
    def bytes(self) -> int:
        """`len(json.dumps(result, default=str))`: upstream's `ToolInvocation.bytes`, so a
        grader written for HoloDeck that reads it runs unchanged."""
        return len(json.dumps(self.result, default=str))


_IMMUTABLE = (str, bytes, int, float, complex, bool, type(None), range, frozenset)


def _freeze(value: Any) -> Any:
    """A deep, read-only copy of plain data: mappings → FrozenDict, lists → FrozenList,
    sets → frozensets, pydantic models → deep copies (frozen for tool invocations). Other
    objects are deep-copied; an object that cannot be copied is passed as it is."""
    if isinstance(value, _IMMUTABLE):
        return value
    if isinstance(value, FrozenToolInvocation):
        return value
    if isinstance(value, ToolInvocation):
        return FrozenToolInvocation.of(value)
    if isinstance(value, Mapping):
        return FrozenDict({key: _freeze(item) for key, item in value.items()})
    if isinstance(value, tuple):
        return tuple(_freeze(item) for item in value)
    if isinstance(value, list):
        return FrozenList(_freeze(item) for item in value)
    if isinstance(value, set):
        return frozenset(value)
    if isinstance(value, BaseModel):
        return value.model_copy(deep=True)
    try:
        return copy.deepcopy(value)
    except Exception:
        return value


# --------------------------------------------------------------------------------------------
# The contract
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class GraderContext:
    """Everything a grader sees of one turn. Read-only: the constructor stores frozen deep
    copies of what it is given, so a grader cannot change the caller's objects.

    * `turn_input`, `agent_response`, `ground_truth`: the turn's prompt, the agent's answer
      (empty if there was none) and the expected answer, if the turn has one.
    * `tool_invocations`: the turn's tool calls in call order, as `FrozenToolInvocation`s
      (`ToolInvocation`s that cannot be changed; `args` is a read-only dict).
    * `retrieval_context`: the turn's RAG context, if any.
    * `turn_index`: 0-based; a single-turn case is turn 0.
    * `test_case_name`: the case's `name:`, if it has one.
    * `turn_config`: the turn's raw configuration (grader-specific keys included), as a
      `FrozenDict`; nested mappings are `FrozenDict`s and lists `FrozenList`s (read-only
      subclasses of dict and list, so they compare equal to plain data and `json.dumps`).

    These are upstream HoloDeck's `GraderContext` fields, by the same names and in the same
    order, and each tool invocation also has upstream's `bytes`: a grader written for
    HoloDeck reads the same attributes here.
    """

    turn_input: str
    agent_response: str
    ground_truth: str | None
    tool_invocations: tuple[ToolInvocation, ...]
    retrieval_context: tuple[str, ...] | None
    turn_index: int
    test_case_name: str | None
    turn_config: Mapping[str, Any]

    def __post_init__(self) -> None:
        invocations = tuple(_freeze(call) for call in self.tool_invocations)
        object.__setattr__(self, "tool_invocations", invocations)
        if self.retrieval_context is not None:
            object.__setattr__(self, "retrieval_context", tuple(self.retrieval_context))
        # A FrozenDict, not a MappingProxyType: upstream hands graders a `dict`, and graders
        # written for it may check `isinstance(ctx.turn_config, dict)`.
        config = {str(key): _freeze(value) for key, value in dict(self.turn_config).items()}
        object.__setattr__(self, "turn_config", FrozenDict(config))


@dataclass(slots=True)
class GraderResult:
    """What a grader returns: `score` in [0, 1]; `passed` (None: `score >= threshold`, the
    threshold being the metric's or 0.5); an optional human `reason`; optional JSON-serialisable
    `details` that the report keeps next to the score."""

    score: float
    passed: bool | None = None
    reason: str | None = None
    details: dict[str, Any] | None = None


# --------------------------------------------------------------------------------------------
# Running a grader
# --------------------------------------------------------------------------------------------


class _GraderError(Exception):
    """A grader broke the contract; the message is what the report shows."""


def run_code_grader(
    grader: Callable[[GraderContext], object],
    metric: CodeMetric,
    context: GraderContext,
    *,
    timeout: float,
) -> MetricResult:
    """Call `grader(context)` with a time limit and turn what it did into a `MetricResult`
    (kind "code", named `metric.display_name`). Never raises for anything the grader does.

    `timeout` is in seconds (`math.inf` waits for ever). A grader still running then is left
    running in its daemon thread and its eventual result is discarded (see the module doc).
    """
    if not timeout > 0:
        raise ValueError(f"timeout must be a positive number of seconds, got {timeout!r}")
    threshold = metric.threshold
    if not metric.enabled:
        return MetricResult(
            metric_name=metric.display_name,
            kind="code",
            threshold=threshold,
            skipped=True,
            reasoning="disabled",
        )
    label = f"grader '{metric.grader}'"
    started = time.perf_counter()
    try:
        returned = _call_with_timeout(grader, context, timeout, label)
        score, passed, reason, details = _lift(returned, threshold, label)
    except _GraderError as exc:
        return MetricResult(
            metric_name=metric.display_name,
            kind="code",
            score=0.0,
            threshold=threshold,
            passed=False,
            error=str(exc),
            evaluation_time_ms=_elapsed_ms(started),
        )
    return MetricResult(
        metric_name=metric.display_name,
        kind="code",
        score=score,
        threshold=threshold,
        passed=passed,
        reasoning=reason,
        evaluation_time_ms=_elapsed_ms(started),
        details=details,
    )


def stops_the_case(metric: CodeMetric, result: MetricResult) -> bool:
    """Whether `result` (of `metric`, from `run_code_grader`) is a grader that raised or
    timed out under `fail_on_error: true`: upstream then stops the case at this turn. A
    failing score or a malformed return value does not stop it (nor does it upstream)."""
    if not metric.fail_on_error or result.error is None:
        return False
    label = f"grader '{metric.grader}'"
    return result.error.startswith((f"{label} raised ", f"{label} timed out "))


def _elapsed_ms(started: float) -> int:
    return round((time.perf_counter() - started) * 1000)


def _call_with_timeout(grader: Grader, context: GraderContext, timeout: float, label: str) -> Any:
    outcome: list[tuple[bool, Any]] = []
    done = threading.Event()

    def work() -> None:
        try:
            outcome.append((True, grader(context)))
        except BaseException as exc:  # user code: SystemExit included
            outcome.append((False, exc))
        finally:
            done.set()

    # The caller's context variables (e.g. a tracing span) stay visible to the grader.
    run_in_context = contextvars.copy_context().run
    worker = threading.Thread(target=run_in_context, args=(work,), name=label, daemon=True)
    worker.start()
    if not done.wait(None if math.isinf(timeout) else timeout):
        raise _GraderError(f"{label} timed out after {timeout:g}s")
    ok, value = outcome[0]
    if not ok:
        raise _GraderError(f"{label} raised {_describe_exception(value)}")
    return value


def _describe_exception(exc: BaseException) -> str:
    message = str(exc)
    name = type(exc).__name__
    return f"{name}: {message}" if message else name


#: The fields of a structured grader result: ours and upstream HoloDeck's
#: (`holodeck.lib.test_runner.code_grader.GraderResult`, a frozen dataclass) have exactly
#: these, so a grader that returns upstream's type is read like one returning ours.
RESULT_FIELDS = ("score", "passed", "reason", "details")


def _qualified(kind: type) -> str:
    module = kind.__module__
    return kind.__qualname__ if module == "builtins" else f"{module}.{kind.__qualname__}"


def _result_fields(value: object) -> tuple[object, object, object, object] | None:
    """`(score, passed, reason, details)` of a result object that has all four; None for
    anything else (bool and numbers are handled by the caller)."""
    if isinstance(value, GraderResult):
        return value.score, value.passed, value.reason, value.details
    missing = object()
    fields = tuple(getattr(value, name, missing) for name in RESULT_FIELDS)
    if any(field is missing for field in fields):
        return None
    return fields[0], fields[1], fields[2], fields[3]


def _lift(
    value: object, threshold: float | None, label: str
) -> tuple[float, bool, str | None, dict[str, Any] | None]:
    """(score, passed, reason, details) from what the grader returned (research §5)."""
    pass_mark = DEFAULT_THRESHOLD if threshold is None else threshold
    if isinstance(value, bool):
        return (1.0 if value else 0.0), value, None, None
    if isinstance(value, numbers.Real):
        score = _score(value, label)
        return score, score >= pass_mark, None, None
    fields = _result_fields(value)
    if fields is None:
        raise _GraderError(_wrong_type(value, label))
    raw_score, raw_passed, reason, details = fields
    score = _score(raw_score, label)
    if raw_passed is not None and not isinstance(raw_passed, bool):
        raise _GraderError(f"{label} returned passed={raw_passed!r}, expected true, false or None")
    if reason is not None and not isinstance(reason, str):
        raise _GraderError(f"{label} returned a reason of type {type(reason).__name__}")
    passed = score >= pass_mark if raw_passed is None else raw_passed
    return score, passed, reason, _details(details, label)


def _wrong_type(value: object, label: str) -> str:
    kind = type(value)
    ours = _qualified(GraderResult)
    expected = f"expected {ours} (or any object with {', '.join(RESULT_FIELDS)}), bool or float"
    if kind.__module__ == "builtins":
        return f"{label} returned {kind.__name__}, {expected}"
    lacking = [name for name in RESULT_FIELDS if not hasattr(value, name)]
    return f"{label} returned {_qualified(kind)}, which has no {', '.join(lacking)}; {expected}"


def _score(value: object, label: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise _GraderError(
            f"{label} returned a score of type {type(value).__name__}, expected a number"
        )
    score = float(value)
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        raise _GraderError(f"{label} returned score {score!r}, outside [0, 1]")
    return score


def _details(details: object, label: str) -> dict[str, Any] | None:
    if details is None:
        return None
    if not isinstance(details, Mapping):
        raise _GraderError(
            f"{label} returned details of type {type(details).__name__}, expected a dict"
        )
    try:
        # Strict JSON (no NaN), and a copy that shares nothing with the grader's objects.
        text = json.dumps(dict(details), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise _GraderError(
            f"{label} returned details that are not JSON-serialisable: {exc}"
        ) from exc
    plain: dict[str, Any] = json.loads(text)
    return plain
