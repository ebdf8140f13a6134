"""Grader resolution's behaviour in both modes: each case runs statically (checker/graders/
static.py) and trusted (checker/graders/trusted.py), with the same verdict and message."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.graders.problems import GraderProblem
from holodeck_lsp.checker.graders.static import resolve_graders_static
from holodeck_lsp.checker.graders.trusted import resolve_graders_trusted
from holodeck_lsp.schema.codes import Code
from tests.checker.graders.grader_files import (
    BOTH,
    Resolver,
    static,
    write,
)


@BOTH
@pytest.mark.parametrize(
    "spec",
    [
        "graders:grade_program",
        "graders:grade_async",
        "graders:Grader",
        "graders:lenient",
        "graders:SequenceMatcher",  # `from a import b`
    ],
)
def test_callables_resolve(agent: Path, spec: str, resolve: Resolver) -> None:
    assert resolve(agent, spec) is None


@BOTH
def test_a_constant_is_not_callable(agent: Path, resolve: Resolver) -> None:
    problem = resolve(agent, "graders:THRESHOLD")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_NOT_CALLABLE
    assert "'graders:THRESHOLD' is not callable" in problem.message
    assert "an int" in problem.message
    assert str(agent / "graders.py") in problem.message
    assert "function or class" in problem.message


@BOTH
def test_missing_attribute_suggests_a_close_name(agent: Path, resolve: Resolver) -> None:
    problem = resolve(agent, "graders:grade_progam")
    assert problem == GraderProblem(
        Code.GRADER_ATTRIBUTE_MISSING,
        f"module 'graders' has no attribute 'grade_progam' (looked in {agent / 'graders.py'}); "
        "did you mean 'grade_program'?",
    )


@BOTH
def test_missing_attribute_without_a_suggestion(agent: Path, resolve: Resolver) -> None:
    problem = resolve(agent, "graders:zzzzzz")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_ATTRIBUTE_MISSING
    assert "define 'zzzzzz' there or fix the grader path" in problem.message


@BOTH
def test_missing_module(agent: Path, resolve: Resolver) -> None:
    problem = resolve(agent, "nothing_like_this_module:fn")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_MODULE_NOT_FOUND
    assert "'nothing_like_this_module'" in problem.message
    assert str(agent) in problem.message


@BOTH
def test_package_graders(tmp_path: Path, resolve: Resolver) -> None:
    write(tmp_path, "pkg/__init__.py")
    write(tmp_path, "pkg/sub.py", "def fn(ctx): ...\nVALUE = 1\n")
    assert resolve(tmp_path, "pkg.sub:fn") is None
    problem = resolve(tmp_path, "pkg.sub:VALUE")
    assert problem is not None and problem.code is Code.GRADER_NOT_CALLABLE
    problem = resolve(tmp_path, "pkg.absent:fn")
    assert problem is not None and problem.code is Code.GRADER_MODULE_NOT_FOUND
    assert "'pkg.absent'" in problem.message and "create" not in problem.message


@BOTH
def test_file_name_instead_of_module_name(agent: Path, resolve: Resolver) -> None:
    problem = resolve(agent, "graders.py:grade_program")
    assert problem is not None and problem.code is Code.GRADER_MODULE_NOT_FOUND
    assert "write 'graders:grade_program'" in problem.message


@BOTH
def test_bad_grader_paths(agent: Path, resolve: Resolver) -> None:
    problem = resolve(agent, "graders.grade_program")
    assert isinstance(problem, GraderProblem) and problem.code is Code.BAD_GRADER_PATH


@BOTH
def test_results_keep_order_and_drop_duplicates(agent: Path, resolve: Resolver) -> None:
    resolver = resolve_graders_static if resolve is static else resolve_graders_trusted
    specs = ["graders:THRESHOLD", "graders:grade_program", "graders:THRESHOLD", "bad"]
    results = resolver(specs, agent)
    assert list(results) == ["graders:THRESHOLD", "graders:grade_program", "bad"]
    assert results["graders:grade_program"] is None
    assert resolver([], agent) == {}
