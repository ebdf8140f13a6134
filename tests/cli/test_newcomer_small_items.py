"""The smaller items of a newcomer's pass, each through the console script: `--help` lists
every importer; `holodeck-lsp` alone at a terminal says it is a language server waiting on
stdio; `check --diff` of an absolute path writes headers `patch -p1` applies; one timestamp
format in `runs`, `compare` and the reports; a resumed run numbers its cases by their place."""

from __future__ import annotations

import os
import pty
import re
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from holodeck_lsp.commands.import_.main import dataset_names
from tests.cli.test_commands import TOOLS, TYPO, run, write
from tests.runner.test_run_cli_live import CLI

pytestmark = pytest.mark.slow


def test_help_lists_every_dataset_import_takes(tmp_path: Path) -> None:
    done = run("--help", cwd=tmp_path)
    (line,) = [line for line in done.stdout.splitlines() if line.strip().startswith("import ")]
    for name in dataset_names():
        assert name in line, line


def test_the_server_alone_at_a_terminal_says_what_it_is_waiting_for() -> None:
    leader, follower = pty.openpty()
    proc = subprocess.Popen([CLI], stdin=follower, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    os.close(follower)
    try:
        assert proc.stderr is not None
        said = b""
        deadline = time.monotonic() + 30
        while b"waiting for an editor" not in said and time.monotonic() < deadline:
            ready, _, _ = select.select([proc.stderr], [], [], 0.5)
            if ready:
                chunk = os.read(proc.stderr.fileno(), 4096)
                if not chunk:
                    break
                said += chunk
        text = said.decode("utf-8")
        assert "this is the language server, waiting for an editor" in text, text
        assert "holodeck-lsp --help" in text
    finally:
        proc.kill()  # this child only, by its own handle
        proc.wait()
        os.close(leader)


@pytest.mark.skipif(shutil.which("patch") is None, reason="patch(1) is not installed")
def test_diff_of_an_absolute_path_applies_with_patch_p1(tmp_path: Path) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    path = write(suite, TYPO)
    (suite / "tools.py").write_text(TOOLS, encoding="utf-8")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    done = run("check", "--diff", str(path), cwd=elsewhere)
    assert done.returncode == 2, done.stderr
    name = str(path).lstrip("/")
    assert done.stdout.startswith(f"--- a/{name}\n+++ b/{name}\n"), done.stdout[:200]
    applied = subprocess.run(
        ["patch", "-p1", "-d", "/"], input=done.stdout, capture_output=True, text=True,
        timeout=30, check=False,
    )  # fmt: skip
    assert applied.returncode == 0, applied.stdout + applied.stderr
    assert 'ground_truth: "25587"' in path.read_text(encoding="utf-8")


_SHOWN_TIME = re.compile(r"\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\b")


def test_runs_and_the_markdown_report_show_times_alike(tmp_path: Path) -> None:
    from tests.sample.sample_support import copy_sample

    folder = copy_sample(tmp_path)
    cassette = folder / "cassettes" / "oracle.json"
    done = run("run", str(folder), "--replay", str(cassette), "--quiet", cwd=tmp_path)
    assert done.returncode in (0, 1), done.stderr
    listed = run("runs", str(folder), cwd=tmp_path).stdout
    report = run("report", "latest", "--agent", str(folder), cwd=tmp_path).stdout
    # The same form in both (not ISO's `T…+00:00`, no fraction of a second).
    assert len(_SHOWN_TIME.findall(listed)) == 1, listed
    assert len(_SHOWN_TIME.findall(report)) == 1, report[:400]
    assert not re.search(r"\d\dT\d\d:", listed + report)
