"""What both grader resolution modes share (checker/graders/problems.py): the grader path's
form and the messages given for the same fault."""

from __future__ import annotations

from holodeck_lsp.checker.graders.problems import (
    GraderProblem,
    attribute_missing,
    bad_path,
    not_callable,
    parse_grader_path,
    py_suffix_problem,
    with_article,
)
from holodeck_lsp.schema.codes import Code


def test_parse_grader_path() -> None:
    assert parse_grader_path("pkg.mod:fn") == ("pkg.mod", "fn")
    assert parse_grader_path("graders") is None
    assert parse_grader_path("a:b:c") is None
    assert parse_grader_path("a-b:c") is None


def test_bad_path_names_the_expected_form() -> None:
    assert bad_path("graders.fn") == GraderProblem(
        Code.BAD_GRADER_PATH, "grader 'graders.fn' is not of the form 'module.path:callable_name'"
    )


def test_py_suffix_is_a_file_name_slip() -> None:
    problem = py_suffix_problem("graders.py", "fn")
    assert problem is not None and problem.code is Code.GRADER_MODULE_NOT_FOUND
    assert problem.message.endswith("write 'graders:fn'")
    assert py_suffix_problem("graders", "fn") is None
    assert py_suffix_problem(".py", "fn") is None  # nothing left to suggest


def test_attribute_missing_suggests_or_says_how_to_fix() -> None:
    suggested = attribute_missing("graders", "grad", "/a/graders.py", "grade")
    assert suggested.code is Code.GRADER_ATTRIBUTE_MISSING
    assert suggested.message == (
        "module 'graders' has no attribute 'grad' (looked in /a/graders.py); did you mean 'grade'?"
    )
    plain = attribute_missing("graders", "grad", "/a/graders.py", None)
    assert plain.message.endswith("define 'grad' there or fix the grader path")


def test_not_callable_leads_with_the_grader() -> None:
    problem = not_callable("graders:LIMIT", "LIMIT", "an int", "defined at /a/graders.py:3")
    assert problem.code is Code.GRADER_NOT_CALLABLE
    assert problem.message == (
        "grader 'graders:LIMIT' is not callable: 'LIMIT' is an int "
        "(defined at /a/graders.py:3); point the grader at a function or class"
    )


def test_with_article() -> None:
    assert with_article("int") == "an int"
    assert with_article("list") == "a list"
    assert with_article("None") == "None"
    assert with_article("Ellipsis") == "Ellipsis"
