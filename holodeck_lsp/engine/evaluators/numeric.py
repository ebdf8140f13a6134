"""`numeric`: the response and the ground truth, read as numbers, must agree within a
tolerance.

Reading a side (both sides are read the same way):

- surrounding white space is ignored, and a Unicode minus (U+2212) counts as `-`;
- the rest must be one plain decimal number: `25587`, `-0.5`, `+3`, `.5`, `25587.`,
  `1.5e-3`, in any script's decimal digits as Python's `float` reads them (`٢٥٥٨٧`,
  `२५५८७`). Not read: `nan`, `inf`, hexadecimal, currency signs, units,
  words, a number inside a sentence (`The answer is 25,587.`), a decimal comma (`1,5`).
  To grade a field of a JSON answer use `response_path`; to pull a number out of prose,
  a code grader;
- `accept_thousands_separators: true` reads digits grouped in threes by `,`, `_`, a
  no-break space (U+00A0), a narrow no-break space (U+202F) or a thin space (U+2009):
  `25,587`, `1_234_567.5`. One kind of separator per number, groups of exactly three
  digits, integer part only — so `1,5` and `12,34` are errors, never silently 15 or 1234.
  A plain space is not a separator (`25 587` could be two numbers);
- `accept_percent: true` reads a trailing `%` (white space before it allowed) as ÷100:
  `14.14%` is 0.1414. A side without `%` is read as is, so `14.1` vs `14.1%` differ.

Without the flag, a `%` or separators give an error naming the flag to set.

Comparing: exact decimal arithmetic (no binary floating point), so a difference exactly
at the tolerance passes — `100` vs `99.99` with `absolute_tolerance: 0.01` passes. Pass
when |actual − expected| ≤ absolute_tolerance (default 1e-6), or, when relative_tolerance
> 0, when |actual − expected| ≤ relative_tolerance × |expected|. Score 1.0 or 0.0; passes
at `threshold` (default 1.0).

A side that cannot be read fails the metric (score 0) with an `error` naming the side:
`agent response "about 25 thousand" is not a number`,
`ground truth "14.1%" has a % sign; set accept_percent: true`.
"""

from __future__ import annotations

import re
from decimal import Decimal
from functools import lru_cache

from holodeck_lsp.engine.evaluators._common import (
    GROUND_TRUTH_SIDE,
    RESPONSE_SIDE,
    binary_result,
    failed_result,
    pass_mark,
    shown,
)
from holodeck_lsp.engine.evaluators.response_path import text_to_grade
from holodeck_lsp.schema.metrics import StandardMetric
from holodeck_lsp.schema.results import MetricResult

#: Characters `accept_thousands_separators` reads between groups of three digits.
THOUSANDS_SEPARATORS = ",_\u00a0\u202f\u2009"

# `\d` is Unicode's decimal digits (Nd), exactly the digits Python's float() and Decimal()
# read, so `٢٥٥٨٧` (Arabic-Indic) is 25587 as upstream's float() reads it.
_PLAIN = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
_GROUPED = re.compile(
    r"[+-]?\d{1,3}(?P<sep>[,_\u00a0\u202f\u2009])\d{3}(?:(?P=sep)\d{3})*(?:\.\d*)?"
)
_SEPARATED = re.compile(r"[+-]?\d[\d.,_\u00a0\u202f\u2009]*")
_DIGIT = re.compile(r"\d")


class NotANumber(ValueError):
    """A side cannot be read as a number. `reason` follows the quoted text in a message,
    e.g. `is not a number`, `has a % sign; set accept_percent: true`."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason

    def describe(self, side: str, text: str) -> str:
        """`agent response "x" is not a number` — the message naming the side."""
        if not text.strip():
            return f"{side} is empty"
        return f"{side} {shown(text)} {self.reason}"


def _read_plain(text: str, accept_thousands_separators: bool) -> Decimal:
    if _PLAIN.fullmatch(text):
        return Decimal(text)
    grouped = _GROUPED.fullmatch(text)
    if grouped is not None:
        if not accept_thousands_separators:
            raise NotANumber("has thousands separators; set accept_thousands_separators: true")
        return Decimal(text.replace(grouped["sep"], ""))
    raise _unreadable(text, accept_thousands_separators)


def _unreadable(text: str, accept_thousands_separators: bool) -> NotANumber:
    if _SEPARATED.fullmatch(text) and any(c in text for c in THOUSANDS_SEPARATORS):
        if accept_thousands_separators:
            return NotANumber(
                "is not a number (separators must split the integer part into groups of "
                "three digits, one kind per number; decimal commas are not read)"
            )
        return NotANumber("is not a number")
    if _DIGIT.search(text):
        return NotANumber(
            "is not a number (only a bare number is read, not text around one: have the "
            "agent answer with the number alone, or grade a JSON field with response_path)"
        )
    return NotANumber("is not a number")


def parse_number(
    text: str, *, accept_percent: bool = False, accept_thousands_separators: bool = False
) -> Decimal:
    """`text` read as `numeric` reads it (see module doc). Raises `NotANumber`."""
    text = text.strip()
    if not text:
        raise NotANumber("is empty")
    if "\u2212" in text:
        text = text.replace("\u2212", "-")
    if text[-1] != "%":
        return _read_plain(text, accept_thousands_separators)
    body = text[:-1].rstrip()
    if not accept_percent:
        try:
            _read_plain(body, accept_thousands_separators=True)
        except NotANumber:
            raise NotANumber("is not a number") from None
        raise NotANumber("has a % sign; set accept_percent: true")
    return _read_plain(body, accept_thousands_separators).scaleb(-2)


@lru_cache(maxsize=64)
def _exact(tolerance: float) -> Decimal:
    # The decimal the author wrote (0.01), not the binary float nearest to it.
    return Decimal(repr(tolerance))


def _fmt(value: Decimal) -> str:
    value = value.normalize()
    return format(value, "f") if -12 < value.adjusted() < 21 else format(value, "g")


def compare_numbers(
    actual: Decimal, expected: Decimal, absolute_tolerance: float, relative_tolerance: float
) -> tuple[bool, str]:
    """Whether `actual` is within tolerance of `expected`, and a one-line explanation."""
    diff = abs(actual - expected)
    head = f"|{_fmt(actual)} − {_fmt(expected)}| = {_fmt(diff)}"
    if diff <= _exact(absolute_tolerance):
        return True, f"{head} ≤ absolute_tolerance {absolute_tolerance:g}"
    if relative_tolerance > 0:
        bound = _exact(relative_tolerance) * abs(expected)
        rel = f"relative_tolerance {relative_tolerance:g} × |{_fmt(expected)}| = {_fmt(bound)}"
        if diff <= bound:
            return True, f"{head} ≤ {rel}"
        return False, f"{head} > absolute_tolerance {absolute_tolerance:g} and > {rel}"
    return False, f"{head} > absolute_tolerance {absolute_tolerance:g}"


def evaluate_numeric(metric: StandardMetric, response: str, ground_truth: str) -> MetricResult:
    """Grade `response` against `ground_truth` as numbers (see module doc)."""
    threshold = pass_mark(metric)
    graded = text_to_grade(metric, response, threshold)
    if isinstance(graded, MetricResult):
        return graded
    response = graded
    accept_percent = metric.flag("accept_percent")
    accept_thousands_separators = metric.flag("accept_thousands_separators")
    problems: list[str] = []
    actual = expected = Decimal(0)
    try:
        actual = parse_number(
            response,
            accept_percent=accept_percent,
            accept_thousands_separators=accept_thousands_separators,
        )
    except NotANumber as error:
        problems.append(error.describe(RESPONSE_SIDE, response))
    try:
        expected = parse_number(
            ground_truth,
            accept_percent=accept_percent,
            accept_thousands_separators=accept_thousands_separators,
        )
    except NotANumber as error:
        problems.append(error.describe(GROUND_TRUTH_SIDE, ground_truth))
    if problems:
        return failed_result(metric, "; ".join(problems), threshold)
    try:
        matched, reasoning = compare_numbers(
            actual,
            expected,
            metric.number("absolute_tolerance"),
            metric.number("relative_tolerance"),
        )
    except ArithmeticError:
        return failed_result(
            metric,
            f"{shown(response)} and {shown(ground_truth)} are too large to compare",
            threshold,
        )
    return binary_result(metric, matched, reasoning)
