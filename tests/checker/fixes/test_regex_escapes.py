"""HD120's targeted fix: escape only what breaks the regex, keep the rest as written."""

from __future__ import annotations

import re

import pytest

from holodeck_lsp.checker.fixes import apply_edits, fixes_for
from holodeck_lsp.checker.fixes.regex_escapes import escape_offending

# (broken pattern, fixed pattern, a text the author meant it to match, one it must not)
CASES = [
    (r"(?i)price\s*(usd", r"(?i)price\s*\(usd", "PRICE   (USD", "price usd"),
    (r"[draft]?\s*\d+[", r"[draft]?\s*\d+\[", "d 12[", "d 12"),
    (r"+1\s*555", r"\+1\s*555", "+1 555", "1 555"),
    (r"total\s*\d+)", r"total\s*\d+\)", "total 42)", "total 42"),
    (r"a**b", r"a*\*b", "aaa*b", "aaab"),
    (r"(?i)\s*?x(", r"(?i)\s*?x\(", " X(", " X"),
    (r"[z-a]\d", r"[z\-a]\d", "-1", "b1"),
    (r"c:\q", r"c:\\q", r"c:\q", "c:q"),
]


@pytest.mark.parametrize(("broken", "fixed", "meant", "not_meant"), CASES)
def test_escapes_only_the_offending_character(
    broken: str, fixed: str, meant: str, not_meant: str
) -> None:
    with pytest.raises(re.error):
        re.compile(broken)
    result = escape_offending(broken)
    assert result is not None
    assert result[0] == fixed
    compiled = re.compile(result[0])
    assert compiled.search(meant)
    assert not compiled.search(not_meant)


def test_several_offenders_are_all_escaped() -> None:
    result = escape_offending(r"(?i)(a\s*[b")
    assert result == (r"(?i)\(a\s*\[b", ["[", "("])
    re.compile(result[0])


@pytest.mark.parametrize("pattern", [r"ok\s*", r"(?P<x", r"(a)\2", "a{2,1}", "(?i)a(?i)b"])
def test_no_guess_when_it_compiles_or_the_fault_is_not_a_stray_character(pattern: str) -> None:
    assert escape_offending(pattern) is None


def test_offered_first_and_preferred_besides_match_literally() -> None:
    text = 'args: {a: {regex: "(?i)price\\\\s*(usd"}}\n'
    offset = text.index("(?i)")
    fixes = fixes_for(text, "HD120", offset, {}, None)
    assert [(fix.title, fix.preferred) for fix in fixes] == [
        ("Escape `(` (keep the rest of the regex)", True),
        ("Match this text literally", False),
    ]
    assert apply_edits(text, fixes[0].edits) == 'args: {a: {regex: "(?i)price\\\\s*\\\\(usd"}}\n'


def test_single_quotes_stay_single_quotes() -> None:
    text = "args: {a: {regex: '\\d+ (x'}}\n"
    [targeted, _] = fixes_for(text, "HD120", text.index("\\d"), {}, None)
    assert apply_edits(text, targeted.edits) == "args: {a: {regex: '\\d+ \\(x'}}\n"


def test_one_fix_when_escaping_the_culprit_is_escaping_everything() -> None:
    text = 'args: {a: {regex: "f(x"}}\n'
    fixes = fixes_for(text, "HD120", text.index("f(x"), {}, None)
    assert [(fix.title, fix.preferred) for fix in fixes] == [("Match this text literally", True)]
