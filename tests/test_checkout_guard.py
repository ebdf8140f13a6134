"""tests/checkout_guard.py: a pytest session that leaves something new in its git checkout
fails and names it; caches do not count; HOLODECK_CHECKOUT_GUARD=0 turns it off; under
pytest-xdist the controller alone compares, after every worker has finished.

Each test builds a small git repository in tmp_path whose conftest installs the guard, and
runs a real pytest session in it as a child process."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.checkout_guard import allowed

ROOT = Path(__file__).resolve().parents[1]
HEADING = "the tests wrote into the checkout"

CONFTEST = """\
from tests import checkout_guard


def pytest_configure(config):
    checkout_guard.register(config)
"""


def git(repo: Path, *args: str) -> None:
    subprocess.run(
        ["git", "-c", "user.name=t", "-c", "user.email=t@example.invalid", *args],
        cwd=repo,
        check=True,
        capture_output=True,
    )


def make_repo(tmp_path: Path, tests: str) -> Path:
    """A committed repository: a conftest installing the guard, a tracked file, an ignored
    folder that already holds a file (as a user's own stored runs would), and `tests`."""
    repo = tmp_path / "checkout"
    (repo / "suite").mkdir(parents=True)
    (repo / "suite" / "conftest.py").write_text(CONFTEST, encoding="utf-8")
    (repo / "suite" / "test_it.py").write_text(tests, encoding="utf-8")
    (repo / "tracked.txt").write_text("as committed\n", encoding="utf-8")
    (repo / ".gitignore").write_text("report.html\n.holodeck/\n", encoding="utf-8")
    (repo / ".holodeck" / "runs").mkdir(parents=True)
    (repo / ".holodeck" / "runs" / "mine.json").write_text("{}", encoding="utf-8")
    git(repo, "init", "-q")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "start")
    return repo


def run_session(repo: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {key: value for key, value in os.environ.items() if not key.startswith("PYTEST")}
    environment.pop("HOLODECK_CHECKOUT_GUARD", None)
    # No installed plugin is loaded but the ones named (`-p xdist` where a test needs it):
    # the session tests the guard alone, and a plugin's own start-up or teardown (asyncio
    # loops, deepeval's import, Hypothesis' database) once held a child past its timeout
    # on a loaded CI machine after its tests had passed.
    environment.update(PYTHONPATH=str(ROOT), PYTEST_DISABLE_PLUGIN_AUTOLOAD="1", **env)
    try:
        return subprocess.run(
            [
                sys.executable,
                "-m",
                "pytest",
                "-q",
                "-p",
                "no:cacheprovider",
                # Should a child hang anyway, its threads' stacks go to stderr, shown below.
                "-o",
                "faulthandler_timeout=100",
                "suite",
                *args,
            ],
            cwd=repo,
            env=environment,
            capture_output=True,
            text=True,
            timeout=180,
            check=False,
        )
    except subprocess.TimeoutExpired as hung:
        pytest.fail(f"the child session hung:\n{hung.stdout!r}\n{hung.stderr!r}")


WRITES = """\
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_writes_a_report_beside_the_readme():
    (ROOT / "report.html").write_text("<html>")


def test_adds_a_run_to_the_users_stored_runs():
    (ROOT / ".holodeck" / "runs" / "theirs.json").write_text("{}")


def test_edits_a_tracked_file():
    (ROOT / "tracked.txt").write_text("changed\\n")


def test_leaves_a_new_file():
    (ROOT / "suite" / "left-over.txt").write_text("x")
"""


@pytest.mark.slow
def test_a_session_that_writes_into_the_checkout_fails_naming_each_path(tmp_path: Path) -> None:
    done = run_session(make_repo(tmp_path, WRITES))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "4 passed" in done.stdout
    summary = done.stdout.split(HEADING, 1)[1]
    assert "new      !! report.html" in summary
    assert "changed  !! .holodeck/" in summary
    assert "new       M tracked.txt" in summary
    assert "new      ?? suite/left-over.txt" in summary
    assert "HOLODECK_CHECKOUT_GUARD=0" in summary  # how to skip it while debugging


CLEAN = """\
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def test_writes_under_tmp_path(tmp_path):
    (tmp_path / "report.html").write_text("<html>")


def test_caches_do_not_count():
    for cache in ("__pycache__", ".pytest_cache", ".mypy_cache", "node_modules", "x.egg-info"):
        (ROOT / "suite" / cache).mkdir(exist_ok=True)
        (ROOT / "suite" / cache / "entry").write_text("cached")
"""


@pytest.mark.slow
def test_a_session_that_writes_only_under_tmp_and_into_caches_passes(tmp_path: Path) -> None:
    done = run_session(make_repo(tmp_path, CLEAN))
    assert done.returncode == 0, done.stdout + done.stderr
    assert HEADING not in done.stdout


@pytest.mark.slow
def test_holodeck_checkout_guard_0_turns_it_off(tmp_path: Path) -> None:
    done = run_session(make_repo(tmp_path, WRITES), HOLODECK_CHECKOUT_GUARD="0")
    assert done.returncode == 0, done.stdout + done.stderr
    assert HEADING not in done.stdout


@pytest.mark.slow
def test_a_failing_session_still_names_what_it_left(tmp_path: Path) -> None:
    tests = WRITES + "\n\ndef test_fails():\n    raise AssertionError\n"
    done = run_session(make_repo(tmp_path, tests))
    assert done.returncode == 1
    assert "1 failed, 4 passed" in done.stdout
    assert HEADING in done.stdout


@pytest.mark.slow
def test_under_xdist_the_controller_compares_once_after_all_workers(tmp_path: Path) -> None:
    pytest.importorskip("xdist")
    done = run_session(make_repo(tmp_path, WRITES), "-p", "xdist", "-n", "2")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "4 passed" in done.stdout
    assert done.stdout.count(HEADING) == 1
    # Every worker's write is seen, so the comparison ran after the last one.
    for path in ("report.html", ".holodeck/", "tracked.txt", "suite/left-over.txt"):
        assert path in done.stdout.split(HEADING, 1)[1]


def test_the_allowlist_is_the_caches_only() -> None:
    for cache in (
        "holodeck_lsp/checker/__pycache__/",
        ".pytest_cache/",
        ".mypy_cache/",
        ".ruff_cache/",
        ".hypothesis/",
        "holodeck_lsp.egg-info/",
        ".venv/",
        "vscode-extension/node_modules/",
    ):
        assert allowed(cache), cache
    for output in (
        "report.html",
        "report.json",
        "e2e-artifacts/",
        "sample/financial-assistant/.holodeck/",
        "vscode-extension/dist/",
        "vscode-extension/holodeck-lsp-0.1.0.vsix",
        "bench/out/",
    ):
        assert not allowed(output), output
