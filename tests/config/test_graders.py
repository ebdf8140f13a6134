"""Grader resolution: statically (never importing) and trusted (importing in a child process)."""

from __future__ import annotations

import os
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from holodeck_lsp.config.graders import (
    GraderProblem,
    parse_grader_path,
    resolve_graders_static,
    resolve_graders_trusted,
)
from holodeck_lsp.schema.codes import Code


def write(root: Path, relative: str, text: str = "") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def static(agent_dir: Path, spec: str) -> GraderProblem | None:
    return resolve_graders_static([spec], agent_dir)[spec]


def trusted(agent_dir: Path, spec: str, timeout: float = 10.0) -> GraderProblem | None:
    return resolve_graders_trusted([spec], agent_dir, timeout=timeout)[spec]


GRADERS = """
    import functools
    from difflib import SequenceMatcher

    THRESHOLD = 3
    NAMES = ["a", "b"]

    def grade_program(ctx):
        return 1.0

    async def grade_async(ctx):
        return 1.0

    class Grader:
        def __call__(self, ctx):
            return 1.0

    lenient = functools.partial(grade_program)
"""

WRITES_ON_IMPORT = """
    from pathlib import Path
    Path(__file__).with_name("IMPORTED").write_text("yes")

    def grade(ctx):
        return 1.0
"""


@pytest.fixture
def agent(tmp_path: Path) -> Path:
    agent_dir = tmp_path / "agent"
    write(agent_dir, "graders.py", GRADERS)
    return agent_dir


Resolver = Callable[[Path, str], GraderProblem | None]
BOTH = pytest.mark.parametrize("resolve", [static, trusted], ids=["static", "trusted"])


def test_parse_grader_path() -> None:
    assert parse_grader_path("pkg.mod:fn") == ("pkg.mod", "fn")
    assert parse_grader_path("graders") is None
    assert parse_grader_path("a:b:c") is None
    assert parse_grader_path("a-b:c") is None


# ------------------------------------------------------------------------------------------
# Behaviour shared by both modes
# ------------------------------------------------------------------------------------------


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


# ------------------------------------------------------------------------------------------
# Static mode
# ------------------------------------------------------------------------------------------


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


# ------------------------------------------------------------------------------------------
# Trusted mode
# ------------------------------------------------------------------------------------------


def test_trusted_import_error_is_module_not_found(tmp_path: Path) -> None:
    write(tmp_path, "needs_dep.py", "import surely_not_installed_dep_xyz\ndef fn(ctx): ...\n")
    problem = trusted(tmp_path, "needs_dep:fn")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_MODULE_NOT_FOUND
    assert "was found but importing it failed" in problem.message
    assert "install 'surely_not_installed_dep_xyz'" in problem.message

    write(tmp_path, "bad_from.py", "from json import no_such_name\n")
    problem = trusted(tmp_path, "bad_from:fn")
    assert problem is not None and problem.code is Code.GRADER_MODULE_NOT_FOUND
    assert "ImportError" in problem.message


def test_trusted_exception_during_import(tmp_path: Path) -> None:
    write(tmp_path, "raises.py", "raise ValueError('boom')\n")
    problem = trusted(tmp_path, "raises:fn")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_IMPORT_FAILED
    assert "ValueError: boom" in problem.message


def test_trusted_sys_exit_during_import(tmp_path: Path) -> None:
    write(tmp_path, "exits.py", "import sys\nsys.exit(2)\n")
    write(tmp_path, "fine.py", "def fn(ctx): ...\n")
    results = resolve_graders_trusted(["exits:fn", "fine:fn"], tmp_path)
    problem = results["exits:fn"]
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_IMPORT_FAILED
    assert "SystemExit: 2" in problem.message
    assert results["fine:fn"] is None  # the check went on


def test_trusted_os_exit_during_import(tmp_path: Path) -> None:
    write(tmp_path, "fine.py", "def fn(ctx): ...\n")
    write(tmp_path, "hard_exit.py", "import os\nos._exit(3)\n")
    write(tmp_path, "later.py", "def fn(ctx): ...\n")
    results = resolve_graders_trusted(["fine:fn", "hard_exit:fn", "later:fn"], tmp_path)
    assert results["fine:fn"] is None  # resolved before the crash
    problem = results["hard_exit:fn"]
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_IMPORT_FAILED
    assert "exited with code 3" in problem.message
    assert "importing module 'hard_exit'" in problem.message
    later = results["later:fn"]
    assert isinstance(later, GraderProblem)
    assert later.code is Code.GRADER_IMPORT_FAILED
    assert "not checked" in later.message and "'hard_exit:fn'" in later.message


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_trusted_segfault_during_import(tmp_path: Path) -> None:
    write(tmp_path, "crashes.py", "import ctypes\nctypes.string_at(0)\n")
    problem = trusted(tmp_path, "crashes:fn")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_IMPORT_FAILED
    assert "SIGSEGV" in problem.message
    assert "Segmentation fault" in problem.message
    assert f"{tmp_path / 'crashes.py'}:2" in problem.message


@pytest.mark.slow
def test_trusted_hanging_import_is_killed(tmp_path: Path) -> None:
    write(tmp_path, "hangs.py", "import time\nwhile True:\n    time.sleep(1)\n")
    write(tmp_path, "fine.py", "def fn(ctx): ...\n")
    started = time.monotonic()
    results = resolve_graders_trusted(["hangs:fn", "fine:fn"], tmp_path, timeout=1.0)
    assert time.monotonic() - started < 8
    for spec in ("hangs:fn", "fine:fn"):
        problem = results[spec]
        assert isinstance(problem, GraderProblem)
        assert problem.code is Code.GRADER_IMPORT_FAILED
        assert "import timed out after 1s" in problem.message
    assert "importing module 'hangs'" in str(results["hangs:fn"])
    assert "not checked" in str(results["fine:fn"])


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="needs /proc")
@pytest.mark.slow
def test_trusted_timeout_kills_spawned_processes(tmp_path: Path) -> None:
    write(
        tmp_path,
        "spawns.py",
        """
        import subprocess, sys, time
        from pathlib import Path
        child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        Path(__file__).with_name("PID").write_text(str(child.pid))
        time.sleep(60)
        """,
    )
    problem = trusted(tmp_path, "spawns:fn", timeout=2.0)
    assert problem is not None and "timed out" in problem.message
    pid = int((tmp_path / "PID").read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(pid):
        time.sleep(0.05)
    assert not _alive(pid)


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")  # a zombie is dead, merely not yet reaped


def test_trusted_stdout_noise_does_not_confuse_the_protocol(tmp_path: Path) -> None:
    write(
        tmp_path,
        "noisy.py",
        """
        import sys
        print('{"spec": "noisy:fn", "status": "ok"}')
        sys.stderr.write('{"spec": "noisy:fn", "status": "ok"}\\n')
        sys.stdout = None
        """,
    )
    problem = trusted(tmp_path, "noisy:fn")
    assert problem is not None and problem.code is Code.GRADER_ATTRIBUTE_MISSING


@pytest.mark.slow
def test_trusted_mode_survives_endless_output(tmp_path: Path) -> None:
    write(tmp_path, "chatty.py", "import sys\nwhile True:\n    sys.stderr.write('x' * 4096)\n")
    problem = trusted(tmp_path, "chatty:fn", timeout=1.0)
    assert problem is not None and "timed out" in problem.message
    assert len(problem.message) < 1000


def test_trusted_mode_runs_in_the_agent_dir(tmp_path: Path) -> None:
    write(
        tmp_path,
        "needs_cwd.py",
        """
        import os, sys
        from pathlib import Path
        assert Path(os.getcwd()).resolve() == Path(__file__).parent.resolve()
        assert Path(sys.path[0]).resolve() == Path(__file__).parent.resolve()
        def fn(ctx): ...
        """,
    )
    assert trusted(tmp_path, "needs_cwd:fn") is None


def test_trusted_missing_interpreter(tmp_path: Path) -> None:
    write(tmp_path, "fine.py", "def fn(ctx): ...\n")
    results = resolve_graders_trusted(["fine:fn"], tmp_path, python=tmp_path / "no-python")
    problem = results["fine:fn"]
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_IMPORT_FAILED
    assert "could not start" in problem.message


def test_trusted_attribute_access_errors(tmp_path: Path) -> None:
    write(tmp_path, "lazy.py", "def __getattr__(name):\n    raise RuntimeError('no ' + name)\n")
    problem = trusted(tmp_path, "lazy:fn")
    assert isinstance(problem, GraderProblem)
    assert problem.code is Code.GRADER_IMPORT_FAILED
    assert "RuntimeError: no fn" in problem.message


def test_trusted_mode_leaves_no_bytecode(tmp_path: Path) -> None:
    write(tmp_path, "fine.py", "def fn(ctx): ...\n")
    assert trusted(tmp_path, "fine:fn") is None
    assert not (tmp_path / "__pycache__").exists()


def test_the_parent_process_never_imports_user_modules(agent: Path) -> None:
    before = set(sys.modules)
    resolve_graders_trusted(["graders:grade_program", "graders:THRESHOLD"], agent)
    assert "graders" not in sys.modules
    assert not any(name not in before for name in sys.modules if name.startswith("graders"))
    assert os.getcwd() != str(agent)
