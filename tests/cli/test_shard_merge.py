"""`run --shard K/N` and `merge`, through the console script on the financial-assistant sample
replayed from its cassette (real stored runs): three shards cover the suite once, their merge
is one stored run that `runs`, `report` and `compare` read like any other and that compares
equal to the whole suite run at once; report files merge too; overlapping parts are refused.

`merge`, `compare`, `report` and one shard's run (`--shard 1/3 --replay … --report-json`) are
real processes; the whole run, the other two shards and the `runs` read-backs run the same
commands in this process (tests/runner/in_process_cli.py) — what they give the merge is the
run's result, and a child replaying the sample spends ~1.5 of its ~1.9 CPU-s starting."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import load_agent_file
from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK
from holodeck_lsp.runner.shards import shard_of
from holodeck_lsp.schema.comparison import Comparison
from holodeck_lsp.schema.results import TestReport
from tests.cli.built_reports import cli
from tests.runner.in_process_cli import cli_in_process_now
from tests.sample.sample_support import copy_sample

pytestmark = pytest.mark.slow  # four replays of the sample and the commands on them


def _run(folder: Path, *flags: str, real_process: bool = False) -> int:
    argv = ["run", str(folder), "--replay", str(folder / "cassettes" / "oracle.json"), "--quiet"]
    if real_process:
        done = cli(*argv, *flags)
        assert done.returncode in (0, 1), done.stderr
        return done.returncode
    ran = cli_in_process_now([*argv, *flags])
    assert ran.status in (0, 1), ran.err
    return ran.status


def _runs_listed(folder: Path) -> list[dict[str, object]]:
    """`runs FOLDER --json`'s runs, oldest first (read in this process)."""
    listed = cli_in_process_now(["runs", str(folder), "--json"])
    assert listed.status == EXIT_OK, listed.err
    runs: list[dict[str, object]] = json.loads(listed.out)["runs"]
    return runs


@dataclass(frozen=True)
class Sharded:
    """The sample run whole (tagged `whole`), then as three shards, each stored and written
    as a report file."""

    folder: Path
    shard_files: list[Path]


@pytest.fixture(scope="module")
def sharded(tmp_path_factory: pytest.TempPathFactory) -> Sharded:
    """Shared by both tests (four replays of the sample; the refusals need only one shard's
    report file, which they do not change)."""
    tmp_path = tmp_path_factory.mktemp("shards")
    folder = copy_sample(tmp_path)
    _run(folder)
    tagged = cli_in_process_now(["runs", str(folder), "--tag", "whole"])  # tags the latest run
    assert tagged.status == EXIT_OK, tagged.err
    shard_files = []
    for k in (1, 2, 3):
        shard_file = tmp_path / f"shard{k}.json"
        _run(folder, "--shard", f"{k}/3", "--report-json", str(shard_file), real_process=k == 1)
        shard_files.append(shard_file)
    return Sharded(folder, shard_files)


def test_three_shards_merged_are_the_whole_run(tmp_path: Path, sharded: Sharded) -> None:
    folder, shard_files = sharded.folder, sharded.shard_files
    agent = folder / "agent.yaml"
    names = [
        {r.test_name for r in TestReport.model_validate_json(f.read_text("utf-8")).results}
        for f in shard_files
    ]
    assert all(names) and sum(map(len, names)) == len(set().union(*names))  # disjoint

    # The three stored shard runs, by id: the three newest runs.
    runs = _runs_listed(folder)
    ids = [str(run["id"]) for run in runs][-3:]
    done = cli("merge", *ids, "--agent", agent)
    assert done.returncode == EXIT_OK, done.stderr
    assert done.stdout.startswith("merged 3 runs as run ")
    merged_id = done.stdout.split("as run ")[1].split(":")[0]

    runs = _runs_listed(folder)
    assert runs[-1]["id"] == merged_id  # the merged run is `latest`
    compared = cli("compare", "--agent", agent, "whole", "latest", "--format", "json")
    assert compared.returncode == EXIT_OK, compared.stderr
    comparison = Comparison.model_validate_json(compared.stdout)
    assert comparison.changes == []  # the same verdicts as the whole run, turn for turn
    [figures] = comparison.statistics
    assert figures.p_value == 1.0 and figures.difference == 0.0
    page = tmp_path / "merged.md"
    assert cli("report", "latest", "--agent", agent, "--md", page).returncode == EXIT_OK
    assert "## Statistics" in page.read_text("utf-8")

    # Report files merge the same way, without storing.
    out = tmp_path / "merged.json"
    done = cli("merge", *shard_files, "--no-save", "--report-json", out)
    assert done.returncode == EXIT_OK, done.stderr
    merged = TestReport.model_validate_json(out.read_text("utf-8"))
    assert {r.test_name for r in merged.results} == set().union(*names)
    assert "merged_from" in merged.environment


def test_parts_that_overlap_or_do_not_fit_are_refused(tmp_path: Path, sharded: Sharded) -> None:
    folder, one = sharded.folder, sharded.shard_files[0]
    done = cli("merge", one, one, "--no-save", "--report-json", tmp_path / "x.json")
    assert done.returncode == EXIT_BAD_INPUT
    assert "is in both" in done.stderr and "--shard 1/N" in done.stderr
    done = cli("merge", one)
    assert done.returncode == EXIT_BAD_INPUT and "two or more" in done.stderr
    done = cli("merge", one, tmp_path / "missing.json", "--no-save", "--report-json", "x.json")
    assert done.returncode == EXIT_BAD_INPUT and "no such report file" in done.stderr
    # An empty shard (more shards than the hash gives cases) runs nothing and succeeds.
    loaded = load_agent_file(folder / "agent.yaml")
    assert loaded.agent is not None
    held = {shard_of(case.name or "", 200) for case in loaded.agent.test_cases or []}
    empty = min(set(range(1, 201)) - held)
    done = cli("run", folder, "--shard", f"{empty}/200", "--no-save", "--quiet")
    assert done.returncode == EXIT_OK, done.stderr
    assert f"shard {empty}/200 holds none of agent.yaml's cases" in done.stdout
