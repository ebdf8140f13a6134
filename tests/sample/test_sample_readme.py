"""The sample README's replay, as a new user runs it: its command, verbatim, through the
installed console script from a copy of the repository's layout (tmp_path/sample/…). The
README's example output is the real one (timings and the run id aside), and the progress
lines above it come in turn order, case after case (the replay answers judged turns from
the cassette, so their verdicts arrive out of order: the display must not show that)."""

from __future__ import annotations

import itertools
import re
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.sample.sample_support import SAMPLE_DIR

pytestmark = pytest.mark.slow

README = SAMPLE_DIR / "README.md"
SCRIPT = str(Path(sys.executable).parent / "holodeck-lsp")
_TIME = re.compile(r" in \d+\.\ds wall time$", re.M)
_RUN_ID = re.compile(r"\b\d{8}-\d{6}-[0-9a-f]{4}\b")
_PROGRESS = re.compile(r"^\[(\d+)/10\] (\S+) (?:turn (\d+) [✓✗] \((\d+)/(\d+)\)|(PASSED|FAILED) )")


def readme_command() -> list[str]:
    """The offline replay command of section 1, without the `.venv/bin/` of a fresh clone."""
    text = README.read_text(encoding="utf-8")
    [line] = [ln for ln in text.splitlines() if ln.startswith(".venv/bin/holodeck-lsp run ")]
    return shlex.split(line)[1:]


def readme_output() -> str:
    text = README.read_text(encoding="utf-8")
    start = text.index("```text\nResults:\n") + len("```text\n")
    return text[start : text.index("```", start)]


def normalised(text: str) -> str:
    return _RUN_ID.sub("RUN-ID", _TIME.sub(" in N.Ns wall time", text))


@pytest.fixture(scope="module")
def root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("clone")


@pytest.fixture(scope="module")
def replayed(root: Path) -> subprocess.CompletedProcess[str]:
    shutil.copytree(SAMPLE_DIR, root / "sample" / "financial-assistant",
                    ignore=shutil.ignore_patterns(".holodeck", "__pycache__"))  # fmt: skip
    return subprocess.run(
        [SCRIPT, *readme_command()], capture_output=True, text=True, timeout=300, check=False,
        cwd=root,
    )  # fmt: skip


def test_the_readme_shows_the_real_output(
    replayed: subprocess.CompletedProcess[str], root: Path
) -> None:
    assert replayed.returncode == 1, replayed.stderr  # as the README says
    real = replayed.stdout[replayed.stdout.index("Results:\n") :]
    # The `runs` hint names the agent file by its absolute path (it works pasted anywhere):
    # the README writes the clone's folder as /path/to/holodeck-lsp.
    real = real.replace(str(root.resolve()), "/path/to/holodeck-lsp")
    assert normalised(readme_output()) == normalised(real)


def test_each_time_says_what_it_measures(
    replayed: subprocess.CompletedProcess[str], root: Path
) -> None:
    """The terminal's figure is wall time; the reports' is the agent's time, named so."""
    assert _TIME.search(replayed.stdout.splitlines()[-1] + "\n"), replayed.stdout[-300:]
    markdown = (root / "report.md").read_text(encoding="utf-8")
    summary = next(line for line in markdown.splitlines() if line.startswith("**Failed**"))
    assert re.search(r" · agent time \d+(\.\d+)? m?s · ", summary), summary
    assert "| Agent time |" in markdown
    page = (root / "report.html").read_text(encoding="utf-8")
    assert '"agent time"' in page and "summed over turns" in page  # the tile and its title


def test_progress_comes_in_turn_order_case_after_case(
    replayed: subprocess.CompletedProcess[str],
) -> None:
    lines = [m for line in replayed.stdout.splitlines() if (m := _PROGRESS.match(line))]
    assert len(lines) == 34 + 10  # a line per turn, one per case
    positions = [int(match[1]) for match in lines]
    assert positions == sorted(positions)  # no case interleaves with another (--parallel 1)
    by_case: dict[str, list[tuple[int, int, int]]] = {}
    for match in lines:
        if match[3] is not None:
            by_case.setdefault(match[2], []).append((int(match[3]), int(match[4]), int(match[5])))
    for case, turns in by_case.items():
        total = turns[0][2]
        # Turn 0, 1, … in order, each with its count so far.
        assert turns == [(i, i + 1, total) for i in range(total)], case
    for match, following in itertools.pairwise(lines):
        if match[6] is not None:  # a case's verdict closes it: the next line is another case
            assert following[2] != match[2]
