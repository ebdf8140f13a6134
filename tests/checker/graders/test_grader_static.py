"""Static grader resolution (checker/graders/static.py): modules found and read, never imported."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from holodeck_lsp.checker.graders.problems import GraderProblem
from holodeck_lsp.checker.graders.static import resolve_graders_static
from holodeck_lsp.schema.codes import Code
from tests.checker.graders.grader_files import (
    WRITES_ON_IMPORT,
    static,
    trusted,
    write,
)


def test_static_mode_never_imports_the_grader(tmp_path: Path) -> None:
    write(tmp_path, "side_effects.py", WRITES_ON_IMPORT)
    assert static(tmp_path, "side_effects:grade") is None
    assert static(tmp_path, "side_effects:missing") is not None
    assert not (tmp_path / "IMPORTED").exists()
    assert "side_effects" not in sys.modules
    # ... while trusted mode does import it.
    assert trusted(tmp_path, "side_effects:grade") is None
    assert (tmp_path / "IMPORTED").read_text() == "yes"
    assert "side_effects" not in sys.modules  # only the child imported it


def test_static_mode_never_runs_package_init(tmp_path: Path) -> None:
    write(
        tmp_path,
        "pkg/__init__.py",
        """
        from pathlib import Path
        Path(__file__).with_name("INIT_RAN").write_text("yes")
        """,
    )
    write(tmp_path, "pkg/sub.py", "def fn(ctx): ...\n")
    assert static(tmp_path, "pkg.sub:fn") is None
    assert static(tmp_path, "pkg.sub:nope") is not None
    assert not (tmp_path / "pkg" / "INIT_RAN").exists()
    assert trusted(tmp_path, "pkg.sub:fn") is None
    assert (tmp_path / "pkg" / "INIT_RAN").exists()


@pytest.mark.parametrize(
    "text",
    [
        "from helpers import *\n",
        "def __getattr__(name):\n    return lambda ctx: 1.0\n",
        "def broken(:\n",  # cannot be read statically: not our call to make
    ],
    ids=["star-import", "module-getattr", "syntax-error"],
)
def test_undecidable_modules_resolve(tmp_path: Path, text: str) -> None:
    write(tmp_path, "open_ended.py", text)
    assert static(tmp_path, "open_ended:anything") is None


def test_compiled_modules_resolve(tmp_path: Path) -> None:
    write(tmp_path, "fast.cpython-311-x86_64-linux-gnu.so")
    write(tmp_path, "win.pyd")
    assert static(tmp_path, "fast:grade") is None
    assert static(tmp_path, "win:grade") is None
    assert static(tmp_path, "fast.sub:grade") is None


def test_missing_module_suggests_a_close_module(agent: Path) -> None:
    problem = static(agent, "grader:grade_program")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_MODULE_NOT_FOUND
    assert problem.message.startswith("module 'grader' not found: no grader.py or grader/ in ")
    assert problem.message.endswith("did you mean 'graders'?")


def test_missing_module_explains_the_fix(tmp_path: Path) -> None:
    problem = static(tmp_path, "qqqq_unknown:fn")
    assert isinstance(problem, GraderProblem)
    assert f"create {tmp_path / 'qqqq_unknown'}.py" in problem.message


def test_missing_submodule(tmp_path: Path) -> None:
    write(tmp_path, "pkg/__init__.py")
    write(tmp_path, "pkg/scoring.py", "def fn(ctx): ...\n")
    problem = static(tmp_path, "pkg.scorng:fn")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_MODULE_NOT_FOUND
    assert "package 'pkg' has no scorng.py or scorng/" in problem.message
    assert str(tmp_path / "pkg") in problem.message
    assert "did you mean 'scoring'?" in problem.message


def test_submodule_of_a_plain_module(agent: Path) -> None:
    problem = static(agent, "graders.sub:fn")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_MODULE_NOT_FOUND
    assert "'graders' is a module" in problem.message and "not a package" in problem.message


def test_namespace_package_has_no_functions(tmp_path: Path) -> None:
    write(tmp_path, "ns/impl.py", "def fn(ctx): ...\n")
    problem = static(tmp_path, "ns:fn")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_ATTRIBUTE_MISSING
    assert "without __init__.py" in problem.message
    assert static(tmp_path, "ns.impl:fn") is None


def test_submodule_named_as_attribute(tmp_path: Path) -> None:
    write(tmp_path, "pkg/__init__.py")
    write(tmp_path, "pkg/scoring.py", "def fn(ctx): ...\n")
    problem = static(tmp_path, "pkg:scoring")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_ATTRIBUTE_MISSING
    assert "'pkg.scoring:<function>'" in problem.message


def test_attributes_bound_conditionally_or_by_import(tmp_path: Path) -> None:
    write(
        tmp_path,
        "graders.py",
        """
        try:
            from fast_graders import grade
        except ImportError:
            def grade(ctx):
                return 0.0
        if True:
            LIMIT = 3
        """,
    )
    assert static(tmp_path, "graders:grade") is None
    problem = static(tmp_path, "graders:LIMIT")
    assert problem is not None and problem.code is Code.GRADER_NOT_CALLABLE
    assert f"defined at {tmp_path / 'graders.py'}:8" in problem.message


def test_not_callable_messages_describe_the_value(agent: Path) -> None:
    problem = static(agent, "graders:NAMES")
    assert problem is not None and "'NAMES' is a list" in problem.message


def test_stdlib_graders_are_found_with_default_search_dirs(tmp_path: Path) -> None:
    assert static(tmp_path, "json:loads") is None
    problem = static(tmp_path, "json:no_such_function")
    assert problem is not None and problem.code is Code.GRADER_ATTRIBUTE_MISSING
    assert static(tmp_path, "os.path:join") is None  # below a frozen/compiled module
    assert static(tmp_path, "math:sqrt") is None  # compiled extension or builtin


def test_explicit_search_dirs(tmp_path: Path) -> None:
    lib = tmp_path / "lib"
    write(lib, "shared_graders.py", "def fn(ctx): ...\n")
    agent_dir = tmp_path / "agent"
    agent_dir.mkdir()
    assert static(agent_dir, "shared_graders:fn") is not None
    results = resolve_graders_static(["shared_graders:fn", "json:loads"], agent_dir, [lib])
    assert results["shared_graders:fn"] is None
    # Only the given directories are searched.
    problem = results["json:loads"]
    assert problem is not None and problem.code is Code.GRADER_MODULE_NOT_FOUND


def test_agent_dir_comes_first(tmp_path: Path) -> None:
    write(tmp_path, "json.py", "CONSTANT = 1\n")  # shadows the stdlib module, as in HoloDeck
    problem = static(tmp_path, "json:loads")
    assert problem is not None and problem.code is Code.GRADER_ATTRIBUTE_MISSING
