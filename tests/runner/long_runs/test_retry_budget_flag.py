"""`run --retry-budget N` through the real console script: listed in --help, and a value that
is not a count refused before anything runs."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

SCRIPT = str(Path(sys.executable).parent / "holodeck-lsp")


def test_run_help_lists_the_retry_budget() -> None:
    done = subprocess.run([SCRIPT, "run", "--help"], capture_output=True, text=True, check=True)
    assert "--retry-budget N" in done.stdout


def test_a_negative_retry_budget_is_refused(tmp_path: Path) -> None:
    done = subprocess.run(
        [SCRIPT, "run", str(tmp_path), "--retry-budget", "-1"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    assert "--retry-budget" in done.stderr
