"""`equality`: the response must equal the ground truth, as strings.

Strict by default — no trimming, no case folding. Three flags relax it, applied to both
sides in this order:

- `case_insensitive`: Unicode case folding (`str.casefold`, so "Yes" = "yes", "Straße" =
  "STRASSE");
- `strip_punctuation`: remove ASCII punctuation (`string.punctuation`; typographic quotes,
  dashes and "…" stay);
- `strip_whitespace`: trim and collapse every run of white space to one space.

Score 1.0 or 0.0; passes at `threshold` (default 1.0). A failure says which flags, if any,
would have made the two sides equal.
"""

from __future__ import annotations

import string
from itertools import combinations

from holodeck_lsp.engine.evaluators._common import (
    binary_result,
    pass_mark,
    shown,
)
from holodeck_lsp.engine.evaluators.response_path import text_to_grade
from holodeck_lsp.schema.metrics import StandardMetric
from holodeck_lsp.schema.results import MetricResult

_PUNCTUATION = str.maketrans("", "", string.punctuation)
_FLAGS = ("case_insensitive", "strip_punctuation", "strip_whitespace")


def normalize(
    text: str,
    *,
    case_insensitive: bool = False,
    strip_whitespace: bool = False,
    strip_punctuation: bool = False,
) -> str:
    """`text` as `equality` compares it under the given flags."""
    if case_insensitive:
        text = text.casefold()
    if strip_punctuation:
        text = text.translate(_PUNCTUATION)
    if strip_whitespace:
        text = " ".join(text.split())
    return text


def _normalized(text: str, flags: set[str]) -> str:
    return normalize(
        text,
        case_insensitive="case_insensitive" in flags,
        strip_whitespace="strip_whitespace" in flags,
        strip_punctuation="strip_punctuation" in flags,
    )


def _would_match(response: str, ground_truth: str, on: set[str]) -> list[str] | None:
    """The fewest flags not yet set that make the two sides equal, if any do."""
    off = [flag for flag in _FLAGS if flag not in on]
    for size in range(1, len(off) + 1):
        for extra in combinations(off, size):
            flags = on | set(extra)
            if _normalized(response, flags) == _normalized(ground_truth, flags):
                return list(extra)
    return None


def evaluate_equality(metric: StandardMetric, response: str, ground_truth: str) -> MetricResult:
    """Grade `response` against `ground_truth` with string equality (see module doc)."""
    threshold = pass_mark(metric)
    graded = text_to_grade(metric, response, threshold)
    if isinstance(graded, MetricResult):
        return graded
    response = graded
    on = {flag for flag in _FLAGS if metric.flag(flag)}
    if not on:
        actual, expected = response, ground_truth
    else:
        actual, expected = _normalized(response, on), _normalized(ground_truth, on)
    if actual == expected:
        how = f" after {', '.join(sorted(on))}" if on else ""
        return binary_result(metric, True, f"equal{how}")
    reasoning = f"{shown(actual)} ≠ {shown(expected)}"
    hint = _would_match(response, ground_truth, on)
    if hint:
        reasoning += "; equal with " + ", ".join(f"{flag}: true" for flag in hint)
    return binary_result(metric, False, reasoning)
