"""scripts/regenerate_samples.py: the committed sample files are what the importers write
(compared with whatever inputs this machine has), .gitattributes marks exactly those files
generated, and the script rewrites a file that was edited by hand."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.importers.bfcl_support import fixture_wheel

ROOT = Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "regenerate_samples.py"
FIX = "regenerate them with `python scripts/regenerate_samples.py`"


def _script(*args: str, script: Path = SCRIPT) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, str(script), *args], capture_output=True, text=True, timeout=300
    )


def test_the_committed_samples_are_what_the_importers_write() -> None:
    done = _script("--check")
    assert done.returncode == 0, f"{done.stdout}{done.stderr}\n{FIX}"
    assert done.stdout.endswith(" generated files differ\n")
    assert done.stdout.startswith("0 of ")


def test_gitattributes_marks_exactly_the_generated_files() -> None:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    tracked = subprocess.run(
        ["git", "ls-files", "sample"], cwd=ROOT, capture_output=True, text=True, check=True
    ).stdout
    attributes = subprocess.run(
        ["git", "check-attr", "--stdin", "linguist-generated"],
        cwd=ROOT, input=tracked, capture_output=True, text=True, check=True,
    ).stdout  # fmt: skip
    marked = sorted(
        line.split(": ")[0] for line in attributes.splitlines() if line.endswith(": true")
    )
    listed = _script("--list").stdout.split()
    assert marked == listed
    assert "sample/bfcl-multi-turn/tools.py" in marked
    assert "sample/financial-assistant/data/convfinqa_subset.json" in marked
    assert "sample/tau2-retail/tau2_bench/src/tau2/evaluator/evaluator_env.py" in marked
    assert "sample/tau2-retail/tau2_bench/data/tau2/domains/retail/db.json" in marked
    assert not any("/cassettes/" in path or path.endswith("README.md") for path in marked)


def test_each_sample_readme_names_the_script() -> None:
    for sample in ("bfcl-multi-turn", "financial-assistant", "tau2-retail"):
        readme = (ROOT / "sample" / sample / "README.md").read_text(encoding="utf-8")
        assert "scripts/regenerate_samples.py" in readme, sample


def test_a_file_edited_by_hand_is_named_and_rewritten(tmp_path: Path) -> None:
    """In a copy of the repository's samples: an edited copy and an edited converter output
    are named by --check, rewritten by a plain run, and then check clean."""
    repo = tmp_path / "repo"
    shutil.copytree(
        ROOT / "sample", repo / "sample", ignore=shutil.ignore_patterns(".holodeck", "__pycache__")
    )
    (repo / "scripts").mkdir()
    shutil.copy(SCRIPT, repo / "scripts" / SCRIPT.name)
    script = repo / "scripts" / SCRIPT.name
    edited = [
        repo / "sample" / "bfcl-multi-turn" / "bfcl_classes" / "math_api.py",
        repo / "sample" / "financial-assistant" / "agent.yaml",
    ]
    for path in edited:
        path.write_bytes(path.read_bytes() + b"# edited by hand\n")

    checked = _script("--check", script=script)
    assert checked.returncode == 1
    assert "sample/bfcl-multi-turn/bfcl_classes/math_api.py differs" in checked.stdout
    assert "sample/financial-assistant/agent.yaml differs" in checked.stdout

    rewritten = _script(script=script)
    assert rewritten.returncode == 0, rewritten.stderr
    assert rewritten.stdout.startswith("2 of ")
    for path in edited:
        original = ROOT / path.relative_to(repo)
        assert path.read_bytes() == original.read_bytes()
    assert _script("--check", script=script).returncode == 0


def test_a_bfcl_source_regenerates_the_wheels_files_too(tmp_path: Path) -> None:
    """The fixture stands in for the wheel: its few records give another agent.yaml, so the
    check names the files written from the wheel, and writes nothing."""
    before = (ROOT / "sample" / "bfcl-multi-turn" / "agent.yaml").read_bytes()
    done = _script("--check", "--bfcl-wheel", str(fixture_wheel(tmp_path)))
    assert done.returncode == 1
    assert "sample/bfcl-multi-turn/agent.yaml differs" in done.stdout
    assert "bfcl-eval wheel not given" not in done.stderr
    assert (ROOT / "sample" / "bfcl-multi-turn" / "agent.yaml").read_bytes() == before


def test_a_missing_wheel_says_where_it_comes_from(tmp_path: Path) -> None:
    done = _script("--check", "--bfcl-wheel", str(tmp_path / "nowhere.whl"))
    assert done.returncode == 2
    assert "pip download --no-deps bfcl-eval" in done.stderr
