"""A pytest plugin that fails the session when the tests left something new in the checkout.

Tests work in `tmp_path`; a test that writes into the repository (a report beside the README,
stored runs under the sample, screenshots at the root) replaces a user's own files and makes
the next run depend on the last one. At session start the controller records what
`git status --porcelain --ignored` lists, with a fingerprint of each untracked or ignored
entry (size and mtime of a file; file count and newest mtime of a folder, since git shows an
untracked folder as one line and a new file inside an existing one would otherwise go
unseen); at session end it compares and fails the session, naming every path that is new or
changed.

Under pytest-xdist only the controller compares (workers have `workerinput`), after every
worker has finished. `HOLODECK_CHECKOUT_GUARD=0` turns it off for local debugging
(DEVELOPERS.md). Outside a git checkout (an sdist, no git) it does nothing.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from fnmatch import fnmatch
from pathlib import Path

import pytest

#: Caches that tools write while they test: the interpreter's bytecode, pytest's, mypy's,
#: ruff's and Hypothesis's stores, the editable install's metadata, the virtualenv and the
#: packages `npm ci` installs (they are the install, not a test's output). Matched against
#: every component of a path, so `holodeck_lsp/checker/__pycache__/` is covered too.
ALLOWED = (
    "__pycache__",
    ".pytest_cache",
    ".mypy_cache",
    ".ruff_cache",
    ".hypothesis",
    "*.egg-info",
    ".venv",
    "node_modules",
)

#: Set to 0 to run without the check (e.g. while debugging a test that keeps its output).
DISABLE = "HOLODECK_CHECKOUT_GUARD"

Snapshot = dict[str, tuple[str, tuple[int, int]]]


def allowed(path: str) -> bool:
    return any(fnmatch(part, pattern) for part in Path(path).parts for pattern in ALLOWED)


def _fingerprint(path: Path) -> tuple[int, int]:
    """(size, mtime) of a file; (number of files, newest mtime) of a folder's tree."""
    try:
        if not path.is_dir() or path.is_symlink():
            stat = path.lstat()
            return (stat.st_size, stat.st_mtime_ns)
    except OSError:
        return (-1, -1)
    count, newest = 0, path.stat().st_mtime_ns
    for folder, dirs, files in os.walk(path):
        dirs[:] = [name for name in dirs if not allowed(name)]
        for name in [*files, *dirs]:
            try:
                newest = max(newest, os.lstat(os.path.join(folder, name)).st_mtime_ns)
            except OSError:
                continue
            count += 1
    return (count, newest)


def snapshot(top: Path) -> Snapshot:
    """Every entry git lists as changed, untracked or ignored (but the caches), with its
    status and fingerprint."""
    done = subprocess.run(
        ["git", "status", "--porcelain=v1", "--ignored", "-z"],
        cwd=top,
        capture_output=True,
        check=True,
    )
    entries: Snapshot = {}
    records = iter(done.stdout.decode("utf-8", "surrogateescape").split("\0"))
    for record in records:
        if not record:
            continue
        status, path = record[:2], record[3:]
        if status[0] in "RC":
            next(records, None)  # a rename's second field is its old name
        if not allowed(path):
            # A tracked file is compared by its status only: a developer's own edits made
            # while the tests run are not the tests' doing.
            untracked = status in ("??", "!!")
            entries[path] = (status, _fingerprint(top / path) if untracked else (0, 0))
    return entries


def differences(before: Snapshot, after: Snapshot) -> list[str]:
    """The entries that are new, or whose status or fingerprint changed, as lines to show."""
    lines = []
    for path, (status, print_) in sorted(after.items()):
        if path not in before:
            lines.append(f"new      {status} {path}")
        elif before[path] != (status, print_):
            lines.append(f"changed  {status} {path}")
    return lines


def git_top(start: Path) -> Path | None:
    if shutil.which("git") is None:
        return None
    done = subprocess.run(
        ["git", "rev-parse", "--show-toplevel"],
        cwd=start,
        capture_output=True,
        text=True,
        check=False,
    )
    return Path(done.stdout.strip()) if done.returncode == 0 else None


class CheckoutGuard:
    """Registered by tests/conftest.py on the controller (or the only) process."""

    def __init__(self, top: Path) -> None:
        self.top = top
        self.before: Snapshot = {}
        self.found: list[str] = []

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        self.before = snapshot(self.top)

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        self.found = differences(self.before, snapshot(self.top))
        if self.found and session.exitstatus == pytest.ExitCode.OK:
            session.exitstatus = pytest.ExitCode.TESTS_FAILED

    def pytest_terminal_summary(self, terminalreporter: pytest.TerminalReporter) -> None:
        if not self.found:
            return
        terminalreporter.section("the tests wrote into the checkout", sep="=", red=True)
        terminalreporter.line(
            f"These paths under {self.top} are new or changed since the session started; "
            "a test must write under tmp_path instead (set HOLODECK_CHECKOUT_GUARD=0 to skip "
            "this check while debugging):"
        )
        for line in self.found:
            terminalreporter.line(f"  {line}")


def register(config: pytest.Config) -> None:
    """Install the guard unless disabled, on a worker of pytest-xdist or outside git."""
    if os.environ.get(DISABLE, "1") == "0" or hasattr(config, "workerinput"):
        return
    top = git_top(config.rootpath)
    if top is not None:
        config.pluginmanager.register(CheckoutGuard(top), "holodeck-checkout-guard")
