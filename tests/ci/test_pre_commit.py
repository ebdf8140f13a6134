"""The `holodeck-check` pre-commit hook with the real `pre-commit` tool, in a temporary git
repository whose config points at this checkout (a local clone: pre-commit installs the hook
from it, its dependencies from PyPI). Slow: the first run builds the hook's environment —
with uv when the dev extra's `pre-commit-uv` is installed (half the time of pip's index
lookups and install), with pip otherwise; the hook and what it is checked for are the same."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PRE_COMMIT = Path(sys.executable).with_name("pre-commit")

GOOD = """\
name: demo
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "You are helpful."}
test_cases:
  - {name: t1, input: "What is 2+2?", ground_truth: "4"}
"""


def git(repo: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["git", *args], cwd=repo, capture_output=True, text=True, check=False, timeout=60
    )


@pytest.mark.slow
def test_the_hook_blocks_a_commit_with_a_faulty_agent_and_lets_a_fixed_one_through(
    tmp_path: Path,
) -> None:
    if not PRE_COMMIT.exists() or shutil.which("git") is None:
        pytest.skip("needs pre-commit (the dev extra) and git")
    head = git(ROOT, "rev-parse", "HEAD")
    if head.returncode != 0:
        pytest.skip("not a git checkout")
    repo = tmp_path / "project"
    repo.mkdir()
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(tmp_path / "cache"),
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.com",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.com",
    }
    env.pop("PYTHONPATH", None)  # the hook runs the installed copy, not this checkout's
    (repo / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {ROOT}\n    rev: {head.stdout.strip()}\n"
        "    hooks:\n      - id: holodeck-check\n",
        encoding="utf-8",
    )
    agent = repo / "agents" / "support.agent.yaml"
    agent.parent.mkdir()
    agent.write_text(GOOD.replace('ground_truth: "4"', "ground_truth: 4"), encoding="utf-8")
    (repo / "notes.yaml").write_text("not: [an agent\n", encoding="utf-8")  # not matched
    assert git(repo, "init", "-q").returncode == 0
    git(repo, "add", ".")

    def run_hooks() -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [str(PRE_COMMIT), "run", "--all-files"],
            cwd=repo,
            capture_output=True,
            text=True,
            env=env,
            check=False,
            timeout=900,
        )

    failed = run_hooks()
    assert failed.returncode == 1, failed.stdout + failed.stderr
    assert "holodeck-lsp check" in failed.stdout and "Failed" in failed.stdout
    assert "agents/support.agent.yaml:5:" in failed.stdout and "[HD102]" in failed.stdout
    assert "notes.yaml" not in failed.stdout

    agent.write_text(GOOD, encoding="utf-8")
    git(repo, "add", ".")
    passed = run_hooks()
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert "Passed" in passed.stdout
