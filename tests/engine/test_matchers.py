"""Matcher semantics (contract-tool-arg-matchers.md §2-§5) and the edge cases it leaves open.

The SC-006 matrix itself runs through the public assertion API in test_tool_assertions.py;
this file pins each matcher's decisions one by one.
"""

from __future__ import annotations

import math
import re
import time
from typing import Any

import pytest
import regex
from hypothesis import given
from hypothesis import strategies as st

from holodeck_lsp.engine import matchers
from holodeck_lsp.engine.matchers import (
    RegexError,
    describe_mismatch,
    match_fuzzy,
    match_literal,
    match_regex,
    matches,
)
from holodeck_lsp.engine.tool_assertions import check_expected_tools
from holodeck_lsp.schema.matchers import FuzzyMatcher, LiteralMatcher, RegexMatcher
from holodeck_lsp.schema.results import ToolInvocation
from holodeck_lsp.schema.test_case import ExpectedTool

NAN = math.nan
INF = math.inf


def _regex(pattern: str, flags: int = 0) -> RegexMatcher:
    return RegexMatcher(re.compile(pattern, flags))


def _rx(pattern: str, actual: Any) -> bool:
    return match_regex(_regex(pattern), actual, timeout=1.0)


# --------------------------------------------------------------------------- literal


@pytest.mark.parametrize(
    ("expected", "actual", "result"),
    [
        # int <-> float by value; negatives and signed zero
        (206588, 206588.0, True),
        (-5, -5.0, True),
        (-5, 5, False),
        (0, -0.0, True),
        (-0.0, 0.0, True),
        (1000, 1e3, True),
        # compared exactly: no float rounding of large ints, no overflow
        (2**53 + 1, float(2**53), False),
        (10**400, 1e308, False),
        # NaN equals nothing, itself included; infinities equal themselves only
        (NAN, NAN, False),
        (NAN, "nan", False),
        (INF, INF, True),
        (INF, -INF, False),
        # bools are strict, also inside containers
        (True, True, True),
        (True, 1, False),
        (0, False, False),
        ([True], [1], False),
        ({"on": False}, {"on": 0}, False),
        # None needs None
        (None, None, True),
        (None, "None", False),
        (None, 0, False),
        (0, None, False),
        # strings: verbatim, no normalisation, never equal to numbers
        ("Yes", "yes", False),
        ("206,588", "206588", False),
        ("206588", 206588, False),
        (206588, "206588", False),
        ("1e3", 1000, False),
        ("٢٠٦٥٨٨", 206588, False),
        # lists (and tuples) element-wise, nested, with numeric equivalence
        ([1, 2], [1.0, 2.0], True),
        ([[1, 2.5], [3]], [[1.0, 2.5], [3.0]], True),
        ([1, 2], (1, 2), True),
        ([1, 2], [2, 1], False),
        ([1, 2], [1, 2, 3], False),
        ([NAN], [NAN], False),
        ([1], {"0": 1}, False),
        # dicts: same keys, values compared by these rules
        ({"mode": "fast"}, {"mode": "fast"}, True),
        ({"a": [1, {"b": 2}]}, {"a": [1.0, {"b": 2.0}]}, True),
        ({"mode": "fast"}, {"mode": "fast", "x": 1}, False),
        ({"mode": "fast"}, {"mode": "Fast"}, False),
        ({"mode": "fast"}, "fast", False),
    ],
)
def test_literal(expected: Any, actual: Any, result: bool) -> None:
    assert match_literal(expected, actual) is result


def test_literal_nan_is_unequal_even_when_the_very_same_object() -> None:
    shared = [NAN]
    assert shared == shared  # Python's list identity shortcut...
    assert match_literal(shared, shared) is False  # ...is not used


@given(st.integers(min_value=-(2**53), max_value=2**53))
def test_literal_int_equals_its_float(number: int) -> None:
    assert match_literal(number, float(number))
    assert match_literal([number], [float(number)])


# --------------------------------------------------------------------------- fuzzy


@pytest.mark.parametrize(
    ("pattern", "actual", "result"),
    [
        # contract §3 consequences
        ("206588", 206588, True),
        ("206588", 206588.0, True),
        ("206588", "206588", True),
        ("206588", "206,588", True),
        ("206588", "206 588", True),
        ("206588", " 206588 ", True),
        ("206588", "206\u202f588", True),
        ("206588", "206_588", True),
        ("206,588", 206588, True),
        ("206588", 206000, False),
        ("206588.000", 206588, True),
        ("YES", "yes", True),
        ("YES", " yes ", True),
        ("New  York", "new york", True),
        ("new york", "newyork", False),
        # negatives and signed zero
        ("-5", -5, True),
        ("-5", 5, False),
        ("-1,000", -1000.0, True),
        ("-0", 0, True),
        ("0", -0.0, True),
        # exponent notation is a number
        ("1e3", 1000, True),
        ("1E3", "1000", True),
        ("1.5e-3", 0.0015, True),
        # absolute tolerance 1e-9, no relative tolerance
        ("0.1", 0.1 + 1e-10, True),
        ("0.1", 0.1 + 1e-8, False),
        ("206588", 206588.4, False),
        # NaN equals nothing, itself included (float() parses "nan")
        ("nan", NAN, False),
        ("NaN", "nan", False),
        # infinities (float() parses "inf" / "infinity")
        ("inf", INF, True),
        ("Infinity", "inf", True),
        ("-inf", INF, False),
        # Unicode decimal digits parse, as with the reference float()
        ("206588", "٢٠٦٥٨٨", True),
        ("206588", "２０６５８８", True),
        ("٢٠٦٥٨٨", 206588, True),
        # percent, on either or both sides
        ("14.14%", 0.1414, True),
        ("14.14%", "14.14%", True),
        ("14.14%", "0.1414", True),
        ("14.14 %", 0.1414, True),
        ("0.1414", "14.14%", True),
        ("14.14%", 14.14, False),
        ("50%", "half", False),
        # None compares as the text "none"
        ("none", None, True),
        ("None", None, True),
        ("null", None, False),
        ("", None, False),
        # bools compare as the text "true" / "false", never as 1 / 0
        ("true", True, True),
        ("TRUE", True, True),
        ("false", False, True),
        ("1", True, False),
        ("yes", True, False),
        # containers compare as their str() text
        ("[1, 2]", [1, 2], True),
        ("[1, 2]", [1.0, 2.0], False),
        # huge ints do not crash
        ("1", 10**400, False),
        ("", "", True),
    ],
)
def test_fuzzy(pattern: str, actual: Any, result: bool) -> None:
    assert match_fuzzy(pattern, actual) is result


@given(st.integers(min_value=-(10**15), max_value=10**15))
def test_fuzzy_accepts_grouped_and_float_forms_of_an_int(number: int) -> None:
    pattern = str(number)
    for actual in (number, float(number), f"{number:,}", f"{number:_}", f" {number} "):
        assert match_fuzzy(pattern, actual), actual
    assert not match_fuzzy(pattern, number + 1)


# --------------------------------------------------------------------------- regex


@pytest.mark.parametrize(
    ("pattern", "actual", "result"),
    [
        ("^2009.*$", "2009 cash flow", True),
        ("2009", "2009 cash flow", False),  # fullmatch: anchored without ^…$
        ("cash", "2009 cash flow", False),
        (r"181001(\.0+)?", 181001.0, True),  # compared with str(actual)
        (r"181001(\.0+)?", 181001, True),
        ("None", None, True),  # str(None)
        ("none", None, False),
        ("True", True, True),
        ("nan", NAN, True),  # a regex sees text: "nan"
        ("inf", INF, True),
        (r"\[1, 2\]", [1, 2], True),
        ("(?i)yes", "YES", True),
        (r"\d+", "٢٠٦", True),  # \d is Unicode, as in re
    ],
)
def test_regex(pattern: str, actual: Any, result: bool) -> None:
    assert _rx(pattern, actual) is result


def test_regex_keeps_flags_of_the_compiled_pattern() -> None:
    assert match_regex(_regex("yes", re.IGNORECASE), "YES", timeout=1.0)
    assert match_regex(_regex(r"\d", re.ASCII), "1", timeout=1.0)
    assert not match_regex(_regex(r"\d", re.ASCII), "٢", timeout=1.0)
    assert match_regex(_regex("a.b", re.DOTALL), "a\nb", timeout=1.0)


def test_regex_times_out_with_a_reason() -> None:
    started = time.perf_counter()
    with pytest.raises(RegexError, match=r"^regex timed out after 0\.05s$"):
        match_regex(_regex("(a|aa)+$"), "a" * 40 + "b", timeout=0.05)
    assert time.perf_counter() - started < 5


def test_regex_compiles_once() -> None:
    matcher = _regex("^cached-once$")
    assert _rx(matcher.pattern, "cached-once")
    twin = matchers._compiled[matcher.compiled]
    assert match_regex(matcher, "cached-once", timeout=1.0)
    assert matchers._compiled[matcher.compiled] is twin


def test_pattern_the_regex_engine_rejects_fails_instead_of_running_unguarded(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def reject(pattern: str, flags: int = 0) -> Any:
        raise regex.error("unsupported here")

    monkeypatch.setattr(regex, "compile", reject)
    matcher = _regex("^only-re-accepts-this$")
    with pytest.raises(RegexError, match=r"^regex cannot be run with a timeout \("):
        match_regex(matcher, "only-re-accepts-this", timeout=1.0)

    tool = ExpectedTool(name="t", args={"a": matcher})
    _, details = check_expected_tools(
        [tool], [ToolInvocation(name="t", args={"a": "only-re-accepts-this"})]
    )
    assert details is not None
    assert details[0].unmatched_reason == (
        "arg 'a' mismatch: expected regex \"^only-re-accepts-this$\", got "
        '"only-re-accepts-this" (regex cannot be run with a timeout (unsupported here))'
    )


# --------------------------------------------------------------------------- dispatch


def test_matches_dispatches_on_the_matcher_kind() -> None:
    assert matches(LiteralMatcher(1), 1.0, regex_timeout=1.0)
    assert matches(FuzzyMatcher("1,000"), 1000, regex_timeout=1.0)
    assert matches(_regex("1.*"), 1000, regex_timeout=1.0)
    assert not matches(LiteralMatcher("1"), 1, regex_timeout=1.0)


# --------------------------------------------------------------------------- describe_mismatch


@pytest.mark.parametrize(
    ("matcher", "actual", "text"),
    [
        (FuzzyMatcher("181001"), 180000, 'expected fuzzy "181001", got 180000'),
        (LiteralMatcher(206588), 206000, "expected 206588, got 206000"),
        (_regex("^2009.*$"), "report 2009", 'expected regex "^2009.*$", got "report 2009"'),
        (_regex(r"^181001(\.0+)?$"), "x", r'expected regex "^181001(\\.0+)?$", got "x"'),
        (LiteralMatcher("fast"), "slow", 'expected "fast", got "slow"'),
        (LiteralMatcher(206588), 206588.5, "expected 206588, got 206588.5"),
        (LiteralMatcher(True), 1, "expected true, got 1"),
        (LiteralMatcher(None), "None", 'expected null, got "None"'),
        (LiteralMatcher([1, 2]), [2, 1], "expected [1, 2], got [2, 1]"),
        (LiteralMatcher(1), NAN, "expected 1, got NaN"),
        (LiteralMatcher("a"), 'say "hi"', r'expected "a", got "say \"hi\""'),
        (LiteralMatcher("é"), "e", 'expected "é", got "e"'),
        (LiteralMatcher(1), {1, 2}, "expected 1, got {1, 2}"),
    ],
)
def test_describe_mismatch(matcher: Any, actual: Any, text: str) -> None:
    assert describe_mismatch(matcher, actual) == text


def test_describe_mismatch_cuts_long_values() -> None:
    text = describe_mismatch(LiteralMatcher("x"), "y" * 500)
    assert text == 'expected "x", got "' + "y" * 79 + '…"'
    text = describe_mismatch(LiteralMatcher(1), list(range(100)))
    assert len(text) == len("expected 1, got ") + 80
    assert text.endswith("…")
