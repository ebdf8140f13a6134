"""`holodeck-lsp runs` and `report RUN` (commands/runs.py, commands/report.py): the
listing (text and JSON), tags, pruning, and every bad name with its message and exit status.
In-process on a small replayed suite; one test drives the console script on the sample."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from holodeck_lsp.cli import main
from tests.runner.run_history.history_suite import replay, run_folders, write_cassette, write_suite

SAMPLE = Path(__file__).resolve().parents[2] / "sample" / "financial-assistant"


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    cassette = write_suite(tmp_path)
    assert replay(tmp_path, cassette) == 0
    assert replay(tmp_path, write_cassette(tmp_path / "bad.json", ("1", "181001", "yes"))) == 1
    return tmp_path


def test_the_listing_is_oldest_first_with_rates_and_notes(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    assert main(["runs", str(suite)]) == 0
    header, first, second = capsys.readouterr().out.splitlines()
    assert header.split() == ["id", "when", "models", "cases", "turns", "notes"]
    old, new = (p.name for p in run_folders(suite))
    assert first.startswith(old) and second.startswith(new)
    assert "openai:gpt-4o-mini" in first
    assert "2/2 100%" in first and "3/3 100%" in first and first.endswith("replay")
    assert "1/2  50%" in second and "2/3  67%" in second


def test_json_listing(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    capsys.readouterr()
    assert main(["runs", str(suite / "agent.yaml"), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [run["id"] for run in data["runs"]] == [p.name for p in run_folders(suite)]
    assert data["runs"][1]["cases"] == {"passed": 1, "total": 2}
    assert data["unreadable"] == [] and data["tags"] == {}


def test_tag_untag_and_report_by_tag(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    old, new = (p.name for p in run_folders(suite))
    assert main(["runs", str(suite), "--tag", "baseline", "previous"]) == 0
    assert main(["runs", str(suite), "--tag", "nightly"]) == 0  # default: latest
    out = capsys.readouterr().out
    assert f"tagged {old} as baseline" in out and f"tagged {new} as nightly" in out
    assert main(["runs", str(suite)]) == 0
    assert "tag:baseline" in capsys.readouterr().out
    page = suite / "page.html"
    assert main(["report", "baseline", "--agent", str(suite), "--html", str(page)]) == 0
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    md = suite / "r.md"
    assert main(["report", new, "--agent", str(suite / "agent.yaml"), "--md", str(md)]) == 0
    assert main(["runs", str(suite), "--untag", "baseline"]) == 0
    assert f"removed tag baseline (from {old}" in capsys.readouterr().out
    assert main(["report", "baseline", "--agent", str(suite), "--md", str(md)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("holodeck-lsp: error: no stored run 'baseline'") and "nightly" in err


def test_bad_names_and_arguments_exit_2_with_the_cause_first(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    capsys.readouterr()
    cases = {
        ("runs", str(suite), "--tag", "latest"): "'latest' cannot be a tag",
        ("runs", str(suite), "--tag", "x", "nope"): "no stored run 'nope'",
        ("runs", str(suite), "--tag", "x", "2"): "run id prefix '2' is ambiguous",
        ("runs", str(suite), "--untag", "x"): "no tag 'x'",
        ("runs", str(suite / "missing")): "no such file or directory",
        ("runs", str(suite), "--keep", "3"): "--keep N goes with --prune",
        ("report", "latest", "--agent", str(suite / "none"), "--html", "x.html"): (
            "no such file or directory"
        ),
        ("report", "missing.json", "--html", "x.html"): "cannot read missing.json",
    }
    for argv, message in cases.items():
        assert main(list(argv)) == 2, argv
        err = capsys.readouterr().err
        assert err.startswith("holodeck-lsp: error: ") and message in err, (argv, err)


def test_prune_from_the_command(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["runs", str(suite), "--tag", "keepme", "previous"]) == 0
    cassette = suite / "cassette.json"
    for _ in range(2):
        assert replay(suite, cassette, "--keep", "0") == 0
    capsys.readouterr()
    assert main(["runs", str(suite), "--prune", "--keep", "1"]) == 0
    assert "pruned 2 runs" in capsys.readouterr().out
    assert len(run_folders(suite)) == 2  # the tagged one and the newest


def test_a_broken_folder_is_listed_as_unreadable(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    old, _new = run_folders(suite)
    (old / "run.json").write_text("{", encoding="utf-8")
    capsys.readouterr()
    assert main(["runs", str(suite)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert len(lines) == 3 and lines[-1].startswith(f"{old.name}  unreadable: run.json is not JSON")


@pytest.mark.slow
def test_the_console_script_on_the_sample(tmp_path: Path) -> None:
    """The README's replay, twice, through the installed `holodeck-lsp`; then the history."""
    sample = tmp_path / "sample"
    shutil.copytree(SAMPLE, sample, ignore=shutil.ignore_patterns(".holodeck"))
    script = str(Path(sys.executable).parent / "holodeck-lsp")

    def cli(*argv: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [script, *argv], capture_output=True, text=True, timeout=120, check=False, cwd=sample
        )

    cassette = str(sample / "cassettes" / "oracle.json")
    first = cli("run", ".", "--replay", cassette)
    assert first.returncode == 1, first.stderr  # the sample's oracle makes planted mistakes
    assert "run saved as " in first.stdout
    assert cli("run", ".", "--replay", cassette, "--quiet").returncode == 1
    listed = cli("runs")
    assert listed.returncode == 0, listed.stderr
    rows = listed.stdout.splitlines()[1:]
    assert len(rows) == 2 and all("ollama:qwen2.5:7b" in row and "replay" in row for row in rows)
    assert cli("runs", "--tag", "base", "previous").returncode == 0
    page = tmp_path / "page.html"
    done = cli("report", "base", "--html", str(page))
    assert done.returncode == 0, done.stderr
    assert "financial-assistant" in page.read_text(encoding="utf-8")
    data = json.loads(cli("runs", "--json").stdout)
    assert data["runs"][0]["tags"] == ["base"] and data["runs"][0]["replay_of"] == (
        "cassettes/oracle.json"
    )
