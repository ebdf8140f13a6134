"""Every command that takes an agent reads a file or a folder the same way (one resolver:
runner/run_history/which_agent.py). From the root of a copy of the repository's layout
(tmp_path/sample/financial-assistant), the runs stored by `run sample/financial-assistant`
are found by `runs`, `runs sample`, `report latest`, `compare` and `compare --agent FOLDER`;
before any run, each says where it looked and which agent files it found, in one wording.
Through the installed console script."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[2] / "sample" / "financial-assistant"
SCRIPT = str(Path(sys.executable).parent / "holodeck-lsp")
AGENT = "sample/financial-assistant/agent.yaml"
RUNS = "sample/financial-assistant/.holodeck/runs"


def cli(root: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [SCRIPT, *argv], capture_output=True, text=True, timeout=180, check=False, cwd=root
    )


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(SAMPLE, tmp_path / "sample" / "financial-assistant",
                    ignore=shutil.ignore_patterns(".holodeck", "__pycache__"))  # fmt: skip
    return tmp_path


def test_nothing_stored_names_where_it_looked_in_every_command(root: Path) -> None:
    said = {
        "runs": cli(root, "runs"),
        "runs sample": cli(root, "runs", "sample"),
        "report latest": cli(root, "report", "latest", "--html", "page.html"),
        "compare": cli(root, "compare"),
        "compare --agent": cli(root, "compare", "--agent", "sample/financial-assistant"),
    }
    assert said["runs"].returncode == said["runs sample"].returncode == 0
    for name in ("report latest", "compare", "compare --agent"):
        assert said[name].returncode == 2, said[name]
    for name, done in said.items():
        text = (done.stdout + done.stderr).strip()
        line = text.removeprefix("holodeck-lsp: error: ")
        # One wording, lower case, whichever command: where, which agent files, what to do.
        assert line.startswith("no stored runs under "), (name, text)
        assert f"looked in {RUNS} (agent files found: {AGENT})" in line, (name, text)
        # The hint names the agent file by its absolute path: it works pasted anywhere.
        assert f"`holodeck-lsp run {(root / AGENT).resolve()}` stores one" in line, (name, text)
        assert "Traceback" not in text
    assert said["runs"].stdout.startswith("no stored runs under the current folder: ")
    assert said["runs sample"].stdout.startswith("no stored runs under sample: ")
    assert not (root / "page.html").exists()


def test_runs_made_from_the_root_are_found_from_the_root(root: Path) -> None:
    cassette = "sample/financial-assistant/cassettes/oracle.json"
    for _ in range(2):
        done = cli(root, "run", "sample/financial-assistant", "--replay", cassette, "--quiet")
        assert done.returncode == 1, done.stderr  # the recording's planted mistakes
    ids = sorted(p.name for p in (root / RUNS).iterdir() if not p.name.startswith("."))
    assert len(ids) == 2
    for argv in (["runs"], ["runs", "sample"], ["runs", "sample/financial-assistant"]):
        listed = cli(root, *argv)
        assert listed.returncode == 0, listed.stderr
        assert [line.split()[0] for line in listed.stdout.splitlines()[1:]] == ids, argv
    data = json.loads(cli(root, "runs", "sample", "--json").stdout)
    assert data["folder"] == RUNS and [run["id"] for run in data["runs"]] == ids

    page = cli(root, "report", "latest", "--html", "page.html")
    assert page.returncode == 0, page.stderr
    by_id = cli(root, "report", ids[-1], "--agent", "sample", "--html", "by-id.html")
    assert by_id.returncode == 0, by_id.stderr
    assert (root / "page.html").read_bytes() == (root / "by-id.html").read_bytes()
    for argv in (["compare"], ["compare", "--agent", "sample/financial-assistant"],
                 ["compare", "--agent", "sample"], ["compare", "--agent", AGENT]):  # fmt: skip
        compared = cli(root, *argv)
        assert compared.returncode == 0, (argv, compared.stderr)
        assert f"base: previous ({ids[0]})" in compared.stdout
        assert f"head: latest ({ids[1]})" in compared.stdout
    tagged = cli(root, "runs", "sample", "--tag", "base", "previous")
    assert tagged.stdout.strip() == f"tagged {ids[0]} as base", tagged.stderr
    assert cli(root, "compare", "--baseline", "base").returncode == 0


def test_a_missing_path_is_said_alike(root: Path) -> None:
    for argv in (["runs", "nope"], ["check", "nope"], ["compare", "--agent", "nope"],
                 ["report", "latest", "--agent", "nope", "--html", "p.html"]):  # fmt: skip
        done = cli(root, *argv)
        assert done.returncode == 2, argv
        assert "no such file or directory: nope" in done.stderr, (argv, done.stderr)
