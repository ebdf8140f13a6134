"""Regex matchers have Python `re`'s semantics: a differential test, `re.fullmatch` against
`match_regex`, on patterns hypothesis builds from the constructs where the `regex` package
reads text differently (fuzzy counts, POSIX classes, set operations, `\\p`, Unicode tables,
case folding) and the ordinary ones around them."""

from __future__ import annotations

import re
import warnings

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from holodeck_lsp.engine.matchers import RegexError, match_regex
from holodeck_lsp.schema.matchers import RegexMatcher

# Characters whose meaning differs between engines or tables: Kelvin sign, long s, sharp s,
# dotless i, a combining accent, Arabic-Indic digit, information separator (re's \s only),
# and the characters of regex-only syntax.
SUBJECT_CHARS = "abkK\u212as\u017f\u00dfSiI\u0131\u0130e\u0301\u00e91\u0663_ \n\x1c{}<=:[]-&~|"
ATOMS = [
    "a", "b", "k", "s", "1", "e", ":", "-", " ", "\\n", "\u00df", "\u0131",
    r"\d", r"\w", r"\s", r"\D", r"\W", r"\S", ".", r"\b", r"\B", "^", "$", r"\A", r"\Z",
    "[abc]", "[^a-c]", "[[:digit:]]", "[[:alpha:]]", r"[\w-]", "[a-z--[aeiou]]",
    "[a-z&&[aeiou]]", "[k]", r"\p{L}", r"\N{LATIN SMALL LETTER A}", r"\x7b", r"\u212a",
    "{", "}", "e<=1", "[]a]", r"\X", r"\G", r"\m",
]  # fmt: skip
SUFFIXES = ["", "", "", "*", "+", "?", "{2}", "{1,3}", "{,2}", "*?", "++", "{e<=1}", "{1}{e}"]
FLAGS = ["", "(?i)", "(?a)", "(?s)", "(?m)", "(?ia)", "(?x)", "(?V1)"]


@st.composite
def patterns(draw: st.DrawFn, depth: int = 0) -> str:
    pieces = []
    for _ in range(draw(st.integers(1, 4))):
        if depth < 2 and draw(st.integers(0, 4)) == 0:
            inner = draw(patterns(depth + 1))
            alternative = draw(patterns(depth + 1))
            opener = draw(st.sampled_from(["(", "(?:", "(?>", "(?=", "(?!", "(?i:", "(?<="]))
            atom = f"{opener}{inner}|{alternative})" if draw(st.booleans()) else f"{opener}{inner})"
        else:
            atom = draw(st.sampled_from(ATOMS))
        pieces.append(atom + draw(st.sampled_from(SUFFIXES)))
    if depth == 0 and draw(st.booleans()):
        pieces.append(draw(st.sampled_from([r"\1", "(?(1)a|b)"])))
    return "".join(pieces)


def compiled(pattern: str) -> re.Pattern[str] | None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            return re.compile(pattern)
        except (re.error, OverflowError, RecursionError):
            return None


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.filter_too_much])
@given(
    flags=st.sampled_from(FLAGS),
    body=patterns(),
    subjects=st.lists(st.text(SUBJECT_CHARS, max_size=6), min_size=1, max_size=6),
)
def test_regex_matchers_agree_with_re_fullmatch(flags: str, body: str, subjects: list[str]) -> None:
    pattern = compiled(flags + body)
    if pattern is None:
        return  # rejected by `re`: the loader reports it, nothing is matched
    matcher = RegexMatcher(pattern)
    for subject in subjects:
        expected = pattern.fullmatch(subject) is not None
        assert match_regex(matcher, subject, timeout=5.0) is expected, (pattern, subject)


@pytest.mark.parametrize(
    ("pattern", "subject", "expected"),
    [
        ("ab{e<=1}", "ab{e<=1}", True),  # literal text in re, fuzzy matching in `regex`
        ("ab{e<=1}", "ac", False),
        ("[[:digit:]]+", "12", False),  # a set of "[:digt" then "]+" in re
        ("[[:digit:]]+", ":]]", True),
        ("[a-z--[aeiou]]", "b--[a]", False),
        (r"\w", "\u0301", False),  # a combining mark: re's \w is str.isalnum() or _
        (r"\s", "\x1c", True),  # re's \s is str.isspace()
        ("(?i)k", "\u212a", True),  # re folds the Kelvin sign to k
        (r"\B", "", False),  # re never matches \B in an empty string
        ("(?x) a b # comment", "ab", True),
    ],
)
def test_known_differences_between_the_engines_follow_re(
    pattern: str, subject: str, expected: bool
) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        compiled_pattern = re.compile(pattern)
    assert (compiled_pattern.fullmatch(subject) is not None) is expected
    assert match_regex(RegexMatcher(compiled_pattern), subject, timeout=5.0) is expected


def test_a_catastrophic_pattern_still_times_out() -> None:
    matcher = RegexMatcher(re.compile(r"(a|aa)+$"))
    with pytest.raises(RegexError, match=r"timed out after 0\.05s"):
        match_regex(matcher, "a" * 40 + "b", timeout=0.05)
