"""Reading what a grader returned (docs/grading.md#code-graders): a `GraderResult` — ours, upstream
HoloDeck's, or any object with its four fields —, a bare `bool`, or a bare number in [0, 1].
Anything else breaks the contract: GraderContractError says how, and the report shows it."""

from __future__ import annotations

import json
import math
import numbers
from collections.abc import Mapping
from typing import Any

#: Where graders import the contract from (docs/grading.md, sample graders).
PUBLIC_MODULE = "holodeck_lsp.engine.code_graders"
#: Pass mark for a bare score when the metric sets no `threshold`.
DEFAULT_THRESHOLD = 0.5


class GraderContractError(Exception):
    """A grader broke the contract; the message is what the report shows."""


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
    missing = object()
    fields = tuple(getattr(value, name, missing) for name in RESULT_FIELDS)
    if any(field is missing for field in fields):
        return None
    return fields[0], fields[1], fields[2], fields[3]


def lift(
    value: object, threshold: float | None, label: str
) -> tuple[float, bool, str | None, dict[str, Any] | None]:
    """(score, passed, reason, details) from what the grader returned."""
    pass_mark = DEFAULT_THRESHOLD if threshold is None else threshold
    if isinstance(value, bool):
        return (1.0 if value else 0.0), value, None, None
    if isinstance(value, numbers.Real):
        score = _score(value, label)
        return score, score >= pass_mark, None, None
    fields = _result_fields(value)
    if fields is None:
        raise GraderContractError(_wrong_type(value, label))
    raw_score, raw_passed, reason, details = fields
    score = _score(raw_score, label)
    if raw_passed is not None and not isinstance(raw_passed, bool):
        raise GraderContractError(
            f"{label} returned passed={raw_passed!r}, expected true, false or None"
        )
    if reason is not None and not isinstance(reason, str):
        raise GraderContractError(f"{label} returned a reason of type {type(reason).__name__}")
    passed = score >= pass_mark if raw_passed is None else raw_passed
    return score, passed, reason, _details(details, label)


def _wrong_type(value: object, label: str) -> str:
    kind = type(value)
    ours = f"{PUBLIC_MODULE}.GraderResult"
    expected = f"expected {ours} (or any object with {', '.join(RESULT_FIELDS)}), bool or float"
    if kind.__module__ == "builtins":
        return f"{label} returned {kind.__name__}, {expected}"
    lacking = [name for name in RESULT_FIELDS if not hasattr(value, name)]
    return f"{label} returned {_qualified(kind)}, which has no {', '.join(lacking)}; {expected}"


def _score(value: object, label: str) -> float:
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise GraderContractError(
            f"{label} returned a score of type {type(value).__name__}, expected a number"
        )
    score = float(value)
    if math.isnan(score) or not 0.0 <= score <= 1.0:
        raise GraderContractError(f"{label} returned score {score!r}, outside [0, 1]")
    return score


def _details(details: object, label: str) -> dict[str, Any] | None:
    if details is None:
        return None
    if not isinstance(details, Mapping):
        raise GraderContractError(
            f"{label} returned details of type {type(details).__name__}, expected a dict"
        )
    try:
        # Strict JSON (no NaN), and a copy that shares nothing with the grader's objects.
        text = json.dumps(dict(details), allow_nan=False)
    except (TypeError, ValueError) as exc:
        raise GraderContractError(
            f"{label} returned details that are not JSON-serialisable: {exc}"
        ) from exc
    plain: dict[str, Any] = json.loads(text)
    return plain
