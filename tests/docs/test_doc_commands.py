"""Every shell command in README.md and docs/ is run here, so none rots: each ```bash / ```sh
block is either run (fast: the holodeck-lsp commands with the installed script, the bench
scripts' options against their --help; slow: README's quick start in a fresh clone), run by
CI (README's test command, which .ci/run executes), or marked `<!-- illustrative: why -->`
on the line above it.

Each block that runs holodeck-lsp runs in its own copy of the checkout (the files git tracks,
and new ones it does not ignore) under tmp_path, as a reader in a fresh clone would: the
commands write reports and store runs (report.html, .holodeck/runs), and none of it may
replace a user's files. The blocks that only ask bench scripts for their `--help` (which
writes nothing) share one copy."""

from __future__ import annotations

import os
import re
import shlex
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
FENCE = re.compile(r"^```(bash|sh|shell)\n(.*?)^```$", re.S | re.M)
MARKER = re.compile(r"<!-- (illustrative: .+|test-command) -->$")


@dataclass(frozen=True)
class Block:
    file: str
    line: int
    commands: tuple[str, ...]
    marker: str | None

    def __str__(self) -> str:
        return f"{self.file}:{self.line}"


def blocks() -> list[Block]:
    found = []
    for path in [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for match in FENCE.finditer(text):
            before = text[: match.start()].rstrip("\n").rsplit("\n", 1)[-1]
            marker = MARKER.search(before)
            body = match.group(2).replace("\\\n", " ")
            commands = []
            for line in body.splitlines():
                line = re.sub(r"\s+#.*$", "", line).strip()
                commands += [part.strip() for part in line.split("&&") if part.strip()]
            found.append(
                Block(
                    str(path.relative_to(ROOT)),
                    text[: match.start()].count("\n") + 1,
                    tuple(commands),
                    marker.group(1) if marker else None,
                )
            )
    return found


BLOCKS = blocks()
RUN = [block for block in BLOCKS if block.marker is None]


def test_every_block_is_run_or_says_why_not() -> None:
    assert RUN, "no runnable block found"
    for block in BLOCKS:
        if block.marker == "test-command":
            assert block.file == "README.md"  # .ci/run executes it (test_docs_match_code)
        for command in block.commands:
            words = shlex.split(command)
            program = next(word for word in words if "=" not in word)
            if block.marker is None:
                assert _kind(program) is not None, f"{block}: nothing runs `{command}`"


def _kind(program: str) -> str | None:
    if program.endswith("holodeck-lsp"):
        return "holodeck"
    if program.endswith("python"):
        return "python"
    if program in ("python3", "cd") or program.endswith("/pip"):
        return "setup"
    return None


def checkout_copy(into: Path) -> Path:
    """The checkout's files (without .git, the venv, caches and build outputs) under `into`."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        check=False,
    )
    if listed.returncode != 0 or shutil.which("git") is None:
        # Not a git checkout (an unpacked sdist): everything but what git would ignore.
        ignore = shutil.ignore_patterns(".git", ".venv", "node_modules", "__pycache__", ".*cache")
        shutil.copytree(ROOT, into, ignore=ignore)
        return into
    for name in listed.stdout.decode("utf-8", "surrogateescape").split("\0"):
        source = ROOT / name
        if name and source.is_file():  # a deleted, not yet committed file is still listed
            (into / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, into / name)
    return into


@pytest.fixture(scope="module")
def shared_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One copy of the checkout for the module: the blocks' own copies are made from it, and
    the blocks that write nothing run in it. checkout_copy's Python loop over 1,300 files takes
    about 1 CPU-s, a copy of a copy with `cp -a` a third of that."""
    return checkout_copy(tmp_path_factory.mktemp("shared") / "checkout")


def own_copy(shared: Path, into: Path) -> Path:
    """A copy of `shared` for one block to write into."""
    if shutil.which("cp") is None:
        shutil.copytree(shared, into, symlinks=True)
        return into
    copied = subprocess.run(["cp", "-a", str(shared), str(into)], capture_output=True, check=False)
    assert copied.returncode == 0, copied.stderr
    return into


def writes(block: Block) -> bool:
    """Whether the block runs holodeck-lsp (which may write reports and store runs); the other
    commands run are bench scripts' `--help`."""
    return any(_kind(shlex.split(command)[0]) == "holodeck" for command in block.commands)


@pytest.mark.parametrize("block", RUN, ids=str)
def test_the_commands_run(block: Block, tmp_path: Path, shared_copy: Path) -> None:
    workdir = own_copy(shared_copy, tmp_path / "checkout") if writes(block) else shared_copy
    for command in block.commands:
        words = shlex.split(command)
        kind = _kind(words[0])
        if kind == "holodeck":
            done = subprocess.run(
                [str(BIN / "holodeck-lsp"), *words[1:]],
                cwd=workdir,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            # 1 is a failing test case (the quick start's replay fails on purpose); 2 and 3
            # are what a stale command gets: bad arguments, a missing path, cannot run.
            assert done.returncode in (0, 1), f"{block}: `{command}`\n{done.stderr[-2000:]}"
        elif kind == "python" and len(words) > 1 and words[1].endswith(".py"):
            script = workdir / words[1]
            assert script.is_file(), f"{block}: {words[1]} does not exist"
            help_text = subprocess.run(
                [sys.executable, str(script), "--help"],
                cwd=workdir,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )
            assert help_text.returncode == 0, f"{block}: {words[1]} --help failed"
            for option in (word for word in words[2:] if word.startswith("--")):
                assert option in help_text.stdout, f"{block}: {words[1]} has no {option}"


def user_environment() -> dict[str, str]:
    """The user's environment (pip's index settings and cache included), not this checkout's
    test set-up: tests/conftest.py gives each test process its own XDG_CACHE_HOME, and pip
    would then miss its warm cache."""
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("PYTHONPATH", "VIRTUAL_ENV", "HOLODECK_PREFLIGHT", "XDG_CACHE_HOME")
    }
    user_cache = os.environ.get("HOLODECK_TEST_USER_CACHE_HOME")
    if user_cache:
        env["XDG_CACHE_HOME"] = user_cache
    return env


@pytest.mark.slow
def test_the_quick_start_works_in_a_fresh_clone(tmp_path: Path) -> None:
    """README's first command, as a new user pastes it: a clone of this commit, its own venv."""
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("needs git and a git checkout")
    clone = tmp_path / "holodeck-lsp"
    cloned = subprocess.run(
        ["git", "clone", "-q", str(ROOT), str(clone)], capture_output=True, text=True, check=False
    )
    assert cloned.returncode == 0, cloned.stderr
    (quick,) = [block for block in BLOCKS if block.file == "README.md" and block.marker is None]
    done = subprocess.run(
        ["bash", "-c", " && ".join(quick.commands)],
        cwd=clone,
        capture_output=True,
        text=True,
        timeout=1200,
        check=False,
        env=user_environment(),
    )
    # The replay ends with 1 on purpose (7 turns answered wrongly: README says so).
    assert done.returncode == 1, done.stdout[-3000:] + done.stderr[-3000:]
    # A plain `pip install -e .` has no deepeval: HD206 adds a note about the G-Eval metric.
    assert re.search(r"^0 errors, 0 warnings(, 1 note)? in 1 file$", done.stdout, re.M)
    assert "6 failed of 10 test cases (27/34 turns)" in done.stdout
