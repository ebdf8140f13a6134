"""Argument matchers: does one actual tool-argument value satisfy one asserted matcher?

Semantics: docs/grading.md#expected-tools-and-argument-matchers (its table of literal, fuzzy
and regex). The finer points are decided here, once, and pinned by tests/engine/test_matchers.py:

* Literal numbers compare by value with Python's exact int/float comparison (206588 ==
  206588.0, -0.0 == 0); bools never equal numbers; lists and dicts compare element-wise with
  these same rules, so `[1, 2]` equals `[1.0, 2.0]` but `[true]` does not equal `[1]`.
* NaN never equals anything, NaN included, under literal and fuzzy matchers. A regex sees
  only the text (`str(nan)` is "nan"), so `{regex: "nan"}` does match it.
* Fuzzy parses numbers with `float()` after normalising, so `1e3` equals `1000`, `inf`
  equals `Infinity`, and Unicode decimal digits count (`٢٠٦٥٨٨` equals 206588), as Python's
  `float()` reads them. Spaces inside a number are digit-group separators ("206 588" is
  206588), like commas, underscores and U+202F.
* A trailing `%` divides by 100 on either side: "14.14%" equals 0.1414 and "14.14%", but
  not 14.14.
* Regexes have Python `re`'s semantics, exactly (`re.fullmatch`), and a time limit: `re`
  parses the pattern and `re_translation` writes its parse tree out for the `regex` package,
  which can time out, so a catastrophic pattern fails the assertion instead of hanging the
  run — and `regex`'s own extensions (`{e<=1}`, `[[:digit:]]`, its Unicode tables) never
  apply. tests/engine/test_regex_semantics.py checks `re` against this on generated patterns.
"""

from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any, Final

from holodeck_lsp.engine.re_translation import NotTranslatable, translate
from holodeck_lsp.schema.matchers import (
    ArgMatcherValue,
    FuzzyMatcher,
    LiteralMatcher,
    RegexMatcher,
)

__all__ = [
    "FUZZY_ABS_TOL",
    "RegexError",
    "describe_mismatch",
    "match_fuzzy",
    "match_literal",
    "match_regex",
    "matches",
]

#: Numbers compared by the fuzzy matcher are equal within this absolute tolerance.
FUZZY_ABS_TOL: Final = 1e-9

#: Longest rendering of a value in a mismatch reason before it is cut with "…".
_SHOWN_CHARS: Final = 80


class RegexError(Exception):
    """A regex could not be evaluated against a value; `str(error)` is the reason.

    Raised for a timeout (`regex timed out after 0.05s`) and for a pattern that Python's `re`
    accepted at load time but that cannot be run with a time limit (see `_compile_safe`).
    """


# --------------------------------------------------------------------------- literal


def match_literal(expected: Any, actual: Any) -> bool:
    """Exact equality (the literal matcher): int↔float by value, bools strict, deep lists/dicts."""
    kind = type(expected)
    # Hot path: same-typed strings and ints, the commonest arguments, need no rules.
    if (kind is str or kind is int) and type(actual) is kind:
        return bool(expected == actual)
    # A string never equals a non-string.
    if isinstance(expected, str) or isinstance(actual, str):
        return bool(expected == actual)
    # bool is an int subclass, so it must be settled before the numeric branch.
    if isinstance(expected, bool) or isinstance(actual, bool):
        return type(expected) is type(actual) and expected == actual
    if expected is None or actual is None:
        return expected is actual
    if isinstance(expected, int | float) and isinstance(actual, int | float):
        # Python compares int with float exactly (no rounding, no overflow); NaN != NaN.
        return expected == actual
    if isinstance(expected, list | tuple):
        return _match_sequence(expected, actual)
    if isinstance(expected, dict):
        return _match_mapping(expected, actual)
    return bool(expected == actual)


def _match_sequence(expected: list[Any] | tuple[Any, ...], actual: Any) -> bool:
    # Element-wise rather than `==`: list equality would accept [True] == [1], and its
    # identity shortcut would make a shared NaN equal to itself.
    return (
        isinstance(actual, list | tuple)
        and len(expected) == len(actual)
        and all(map(match_literal, expected, actual))
    )


def _match_mapping(expected: dict[Any, Any], actual: Any) -> bool:
    return (
        isinstance(actual, dict)
        and expected.keys() == actual.keys()
        and all(match_literal(value, actual[key]) for key, value in expected.items())
    )


# --------------------------------------------------------------------------- fuzzy


def _normalize(text: str) -> str:
    """Lowercase, drop separators, collapse and trim white space (the fuzzy matcher)."""
    # Digit-group separators: comma, underscore, narrow no-break space. Chained replace()
    # is twice as fast as translate() here; split()/join is the cheap form of
    # `re.sub(r"\s+", " ", ...).strip()` and trims after separators are dropped, so
    # "yes ," normalises to "yes".
    text = text.lower().replace(",", "").replace("_", "").replace("\u202f", "")
    return " ".join(text.split())


def _parse_number(normalized: str) -> float | None:
    """The number a normalised string spells, a trailing `%` meaning /100; else None."""
    text = normalized
    percent = text.endswith("%")
    if percent:
        text = text[:-1]
    if " " in text:
        # Spaces are digit-group separators too ("206 588"); text that is not a number
        # still fails float() once they are gone.
        text = text.replace(" ", "")
    try:
        value = float(text)
    except ValueError:
        return None
    return value / 100 if percent else value


@lru_cache(maxsize=4096)
def _fuzzy_expected(pattern: str) -> tuple[str, float | None]:
    # The expected side repeats for every call and turn: normalise and parse it once.
    normalized = _normalize(pattern)
    return normalized, _parse_number(normalized)


def _actual_number(actual: Any) -> float | None:
    """`_parse_number(_normalize(str(actual)))`, without the string round trip for numbers."""
    kind = type(actual)
    if kind is float:
        return float(actual)  # str(float) round-trips exactly, nan and inf included
    if kind is int:
        try:
            return float(actual)
        except OverflowError:  # float("1" * 400) is inf; match that
            return math.inf if actual > 0 else -math.inf
    return _parse_number(_normalize(str(actual)))


def match_fuzzy(pattern: str, actual: Any) -> bool:
    """Case-, space- and separator-tolerant, numeric-aware equality (the fuzzy matcher)."""
    expected_text, expected_number = _fuzzy_expected(pattern)
    if expected_number is not None:
        actual_number = _actual_number(actual)
        if actual_number is not None:
            # isclose: inf equals inf; NaN equals nothing.
            return math.isclose(expected_number, actual_number, rel_tol=0.0, abs_tol=FUZZY_ABS_TOL)
    return expected_text == _normalize(str(actual))


# --------------------------------------------------------------------------- regex

# RegexMatcher is a frozen dataclass holding an `re.Pattern`; the timeout-capable twin is
# kept here, keyed by that pattern (hashable by text and flags). A RegexError is cached for
# patterns the `regex` engine rejects, so the rejection is not re-tried per call.
_compiled: dict[re.Pattern[str], Any] = {}
_CACHE_LIMIT: Final = 4096


def _safe_pattern(compiled: re.Pattern[str]) -> Any:
    """The `regex`-engine pattern for `compiled`, or the RegexError explaining why not."""
    cached = _compiled.get(compiled)
    if cached is None:
        cached = _compile_safe(compiled)
        if len(_compiled) >= _CACHE_LIMIT:
            _compiled.clear()
        _compiled[compiled] = cached
    return cached


def _compile_safe(compiled: re.Pattern[str]) -> Any:
    # Imported on the first regex matcher run (timeouts on matching; typed by types-regex,
    # dev): a run or a re-grade without one never pays for its import (docs/benchmarks.md,
    # "Start-up cost, issue 37 item 7").
    import regex

    try:
        # `re` reads the pattern; `regex` only runs what `re` read (module doc).
        return regex.compile(translate(compiled.pattern, compiled.flags), regex.V0)
    except (re.error, regex.error, NotTranslatable, ValueError, OverflowError) as error:
        # `re` accepted it at load time, but `re` cannot be interrupted: running it could
        # hang the run on a catastrophic input, so this assertion fails instead.
        return RegexError(f"regex cannot be run with a timeout ({error})")


def match_regex(matcher: RegexMatcher, actual: Any, *, timeout: float) -> bool:
    """Full match of the pattern against `str(actual)` (the regex matcher).

    Raises RegexError when matching exceeds `timeout` seconds or the pattern cannot run on
    the timeout-capable engine; callers treat that as a failed match with that reason.
    """
    pattern = _safe_pattern(matcher.compiled)
    if isinstance(pattern, RegexError):
        raise pattern
    try:
        return pattern.fullmatch(str(actual), timeout=timeout) is not None
    except TimeoutError:
        raise RegexError(f"regex timed out after {timeout:g}s") from None


# --------------------------------------------------------------------------- dispatch


def matches(matcher: ArgMatcherValue, actual: Any, *, regex_timeout: float) -> bool:
    """Whether `actual` satisfies `matcher`; RegexError propagates (see match_regex)."""
    if isinstance(matcher, LiteralMatcher):
        return match_literal(matcher.value, actual)
    if isinstance(matcher, FuzzyMatcher):
        return match_fuzzy(matcher.pattern, actual)
    return match_regex(matcher, actual, timeout=regex_timeout)


def describe_mismatch(matcher: ArgMatcherValue, actual: Any) -> str:
    """Why `actual` failed `matcher`: `expected fuzzy "181001", got 180000`.

    Values are shown in JSON/YAML form: strings double-quoted, numbers plain, `true`,
    `null`; long values are cut to about 80 characters.
    """
    if isinstance(matcher, FuzzyMatcher):
        expected = f"fuzzy {_show(matcher.pattern)}"
    elif isinstance(matcher, RegexMatcher):
        expected = f"regex {_show(matcher.pattern)}"
    else:
        expected = _show(matcher.value)
    return f"expected {expected}, got {_show(actual)}"


def _show(value: Any) -> str:
    if isinstance(value, str):
        if len(value) > _SHOWN_CHARS:
            value = value[: _SHOWN_CHARS - 1] + "…"
        return json.dumps(value, ensure_ascii=False)
    try:
        text = json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):  # not JSON-shaped (a set, an object): its repr
        text = repr(value)
    if len(text) > _SHOWN_CHARS:
        text = text[: _SHOWN_CHARS - 1] + "…"
    return text
