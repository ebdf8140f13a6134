"""HD132's "Change to the closest grader" fix and fix-all, on real files."""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.checker.fixes import Reported, apply_edits, fix_all, fixes_for

GRADERS = '''"""Graders."""
from os import path as turn_program_equivalent_path

TURN_PROGRAM_EQUIVALENCE_LIMIT = 3


def turn_program_equivalence(ctx):
    return True


def turn_program_helper(a, b):
    return a


class TurnProgramEquivalent:
    pass
'''


def test_change_to_the_closest_grader_shaped_function_first(tmp_path: Path) -> None:
    (tmp_path / "graders.py").write_text(GRADERS, "utf-8")
    text = "grader: graders:turn_program_equivalnce\n"
    fixes = fixes_for(text, "HD132", text.index("graders:"), {}, tmp_path)
    assert [(fix.title, fix.preferred) for fix in fixes] == [
        ("Change to 'turn_program_equivalence'", True),
        ("Create grader function `turn_program_equivalnce` in `graders.py`", False),
    ]
    assert apply_edits(text, fixes[0].edits) == "grader: graders:turn_program_equivalence\n"


def test_quoted_reference_keeps_its_quotes(tmp_path: Path) -> None:
    (tmp_path / "graders.py").write_text(GRADERS, "utf-8")
    text = "grader: 'graders:turn_program_equivalnce'\n"
    [change, _] = fixes_for(text, "HD132", text.index("graders:"), {}, tmp_path)
    assert apply_edits(text, change.edits) == "grader: 'graders:turn_program_equivalence'\n"


def test_imports_classes_constants_and_two_argument_functions_are_not_offered(
    tmp_path: Path,
) -> None:
    (tmp_path / "graders.py").write_text(GRADERS.replace("turn_program_equivalence", "zz"), "utf-8")
    for typo in (
        "turn_program_equivalent_pat",
        "TURN_PROGRAM_EQUIVALENCE_LIMT",
        "turn_program_helpr",
    ):
        text = f"grader: graders:{typo}\n"
        titles = [fix.title for fix in fixes_for(text, "HD132", 8, {}, tmp_path)]
        assert titles == [f"Create grader function `{typo}` in `graders.py`"]


def test_fix_all_applies_each_preferred_fix_once() -> None:
    text = "cases:\n  - {input: 1, ground_truth: 2}\n  - {input: 3, ground_truth: 4}\n"
    reported = [
        Reported("HD102", text.index(value), {"expected": "a string"}, "")
        for value in ("1,", "2}", "3,", "4}")
    ]
    reported.append(reported[0])  # reported twice: fixed once
    combined = fix_all(text, "HD102", reported, None)
    assert combined is not None
    fix, fixed = combined
    assert fix.title == "Fix all HD102 in this file"
    assert len(fixed) == 5
    assert apply_edits(text, fix.edits) == (
        'cases:\n  - {input: "1", ground_truth: "2"}\n  - {input: "3", ground_truth: "4"}\n'
    )


def test_fix_all_needs_two_fixes_and_ignores_other_codes() -> None:
    text = "cases:\n  - {input: 1, ground_truth: 2}\n"
    one = [Reported("HD102", text.index("1,"), {"expected": "a string"}, "")]
    other = [Reported("HD103", text.index("2}"), {"expected": "a string"}, "")]
    assert fix_all(text, "HD102", one + other, None) is None


def test_fix_all_of_regexes(tmp_path: Path) -> None:
    text = 'a: {regex: "(?i)x\\\\s*("}\nb: {regex: "[y\\\\d+"}\n'
    reported = [Reported("HD120", text.index(p), {}, "") for p in ("(?i)", "[y")]
    combined = fix_all(text, "HD120", reported, tmp_path)
    assert combined is not None
    assert apply_edits(text, combined[0].edits) == (
        'a: {regex: "(?i)x\\\\s*\\\\("}\nb: {regex: "\\\\[y\\\\d+"}\n'
    )
