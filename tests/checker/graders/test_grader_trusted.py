"""Trusted grader resolution (checker/graders/trusted.py): a real import in a child process,
which may raise, exit, crash, hang, spawn or flood stderr without harming us."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from holodeck_lsp.checker.graders.problems import GraderProblem
from holodeck_lsp.checker.graders.trusted import resolve_graders_trusted
from holodeck_lsp.schema.codes import Code
from tests.checker.graders.grader_files import (
    trusted,
    write,
)


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
