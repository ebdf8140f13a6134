"""`holodeck-lsp compare` and `run --baseline` on real runs of the financial-assistant sample:
the committed cassette (the oracle with 20% mistakes, seed 1) replayed, and the offline oracle
(scripts/oracle_server.py, a real process) run live with seed 2 — so the regressions and fixes
are real ones, and the oracle's own plans say which they must be. Also edited turns, an agent
file with a case dropped, an interrupted run, stored runs (`.holodeck/runs/`), bad arguments.

The engine's rules on hand-built reports are tests/engine/test_run_comparison.py.

`compare` as CI meets it — exit status, text and Markdown output, refusals — runs as a real
process; the tests that read its JSON comparison (what was compared, not how it is printed)
run the same command in this process (tests/runner/in_process_cli.py): a child costs ~0.3 CPU-s
of start-up for a command that takes a few milliseconds.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from holodeck_lsp.cli import main
from holodeck_lsp.schema.comparison import Comparison
from tests.reports.test_html_report import embedded
from tests.runner.in_process_cli import cli_in_process_now
from tests.sample.sample_support import (
    CASSETTE_MISTAKES,
    CASSETTE_SEED,
    committed_subset,
    copy_sample,
    grader_imports_isolated,
    oracle_server,
)
from tests.sample.test_oracle import start_oracle, stop

pytestmark = pytest.mark.slow  # every test here replays or runs the sample (seconds each)

OTHER_SEED = 2
TurnId = tuple[str, int]


@dataclass(frozen=True)
class Runs:
    folder: Path  # a copy of the sample the runs came from
    seed1: Path  # report of the committed cassette, replayed
    seed2: Path  # report of a live run against the oracle with seed 2


def wrong_turns(seed: int) -> set[TurnId]:
    plans = oracle_server().build_plans(committed_subset(), CASSETTE_MISTAKES, seed)
    return {(p.case, p.turn) for turns in plans.values() for p in turns if p.mistake}


def run(*args: str) -> int:
    with grader_imports_isolated():
        return main(["run", *args, "--quiet"])


@pytest.fixture(scope="module")
def runs(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Runs]:
    root = tmp_path_factory.mktemp("compare")
    folder = copy_sample(root)
    seed1, seed2 = root / "seed1.json", root / "seed2.json"
    cassette = folder / "cassettes" / "oracle.json"
    assert (
        run(str(folder), "--replay", str(cassette), "--report-json", str(seed1), "--no-save") == 1
    )
    proc, oracle = start_oracle(
        root / "oracle.log", "--mistakes", str(CASSETTE_MISTAKES), "--seed", str(OTHER_SEED)
    )
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("OLLAMA_HOST", f"127.0.0.1:{oracle.port}")
            status = run(str(folder), "--report-json", str(seed2), "--parallel", "4", "--no-save")
    finally:
        stop(proc)
    assert status == 1
    yield Runs(folder, seed1, seed2)


def compare_cli(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    """The real command in its own process (exit status, stdout, stderr as CI sees them)."""
    return subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", "compare", *args],
        capture_output=True,
        text=True,
        cwd=cwd,
        timeout=60,
    )


def comparison_of(*args: str, cwd: Path | None = None) -> tuple[int, Comparison]:
    """`compare … --format json` in this process: its exit status and the comparison."""
    done = cli_in_process_now(["compare", *args, "--format", "json"], cwd)
    assert done.status in (0, 1), done.err
    return done.status, Comparison.model_validate_json(done.out)


def ids(comparison: Comparison, kind: str) -> set[TurnId]:
    return {(c.case, c.turn_index) for c in comparison.of_kind(kind)}  # type: ignore[arg-type]


# -- planted mistakes: real regressions and fixes --------------------------------------------


def test_two_seeds_give_exactly_the_planned_regressions_and_fixes(runs: Runs) -> None:
    before, after = wrong_turns(CASSETTE_SEED), wrong_turns(OTHER_SEED)
    assert after - before and before - after  # the seeds plant different mistakes
    status, comparison = comparison_of(str(runs.seed1), str(runs.seed2))
    assert status == 1
    assert ids(comparison, "regression") == after - before
    assert ids(comparison, "fix") == before - after
    assert comparison.unchanged_failing == len(before & after)
    for change in comparison.of_kind("regression"):
        # The reason a report would give: a tool argument or the numeric metric.
        assert change.head is not None and change.head.reason
        assert change.head.reason.startswith(("tool '", "metric '")), change.head.reason
        assert change.base is not None and change.base.passed
    assert comparison.notes == []  # the same agent file, the same model


def test_the_other_way_round_swaps_regressions_and_fixes(runs: Runs) -> None:
    _, forward = comparison_of(str(runs.seed1), str(runs.seed2))
    _, backward = comparison_of(str(runs.seed2), str(runs.seed1))
    assert ids(backward, "regression") == ids(forward, "fix")
    assert ids(backward, "fix") == ids(forward, "regression")


def test_text_output_groups_regressions_first_and_counts_last(runs: Runs) -> None:
    done = compare_cli(str(runs.seed1), str(runs.seed2), "--color", "never")
    assert done.returncode == 1, done.stderr
    lines = done.stdout.rstrip("\n").splitlines()
    regressions = len(wrong_turns(OTHER_SEED) - wrong_turns(CASSETTE_SEED))
    assert lines.index(f"Regressions ({regressions})") < lines.index(f"Fixes ({regressions})")
    assert lines[-1].startswith(f"{regressions} regressions, ")
    assert "now: tool '" in done.stdout and "was: " in done.stdout
    assert "\x1b[" not in done.stdout


def test_allow_regressions_reports_and_exits_0(runs: Runs, tmp_path: Path) -> None:
    out = tmp_path / "comment.md"
    done = compare_cli(
        str(runs.seed1), str(runs.seed2), "--allow-regressions", "--format", "markdown",
        "--output", str(out),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    text = out.read_text(encoding="utf-8")
    assert text.startswith("## Run comparison: ❌ regressions")
    assert "### Regressions (" in text and "| Turn | Input | What changed |" in text
    assert "comparison written to" in done.stdout


def test_a_run_against_itself_has_no_changes(runs: Runs) -> None:
    status, comparison = comparison_of(str(runs.seed2), str(runs.seed2))
    assert status == 0 and comparison.changes == []


def test_run_with_a_baseline_ends_with_the_comparison(
    runs: Runs, capsys: pytest.CaptureFixture[str]
) -> None:
    """The gate: the replay fails cases, but only the comparison decides the status."""
    cassette = str(runs.folder / "cassettes" / "oracle.json")
    capsys.readouterr()
    assert (
        run(str(runs.folder), "--replay", cassette, "--no-save", "--baseline", str(runs.seed1)) == 0
    )
    same = capsys.readouterr().out
    assert "0 regressions, 0 fixes; 34 unchanged" in same
    page = runs.folder.parent / "against-seed2.html"
    against_seed2 = ["--no-save", "--baseline", str(runs.seed2), "--report-html", str(page)]
    assert run(str(runs.folder), "--replay", cassette, *against_seed2) == 1
    worse = capsys.readouterr().out
    assert "Regressions (" in worse and "head: this run" in worse
    # The HTML report of that run carries the same comparison: its regressions marked.
    data = embedded(page.read_text(encoding="utf-8"))
    assert isinstance(data, dict) and data["baseline"]["counts"].get("regression", 0) > 0


# -- what cannot be compared -----------------------------------------------------------------


def test_an_edited_turn_is_listed_not_compared(runs: Runs, tmp_path: Path) -> None:
    """A copy of the agent file with one question reworded and one case left out (-k), run
    from another folder: the file difference is stated first, the edited turn is listed."""
    folder = copy_sample(tmp_path)
    agent = folder / "agent.yaml"
    old = '"and what was it in 2005?"'
    text = agent.read_text(encoding="utf-8")
    assert text.count(old) == 1
    agent.write_text(text.replace(old, '"and what was it in the year 2005?"'), encoding="utf-8")
    edited = tmp_path / "edited.json"
    dropped = "double-rsg-2016-page-144-pdf"
    cassette = str(folder / "cassettes" / "oracle.json")
    run(str(agent), "--replay", cassette, "--report-json", str(edited), "--no-save", "-k",
        f"not {dropped}")  # fmt: skip
    status, comparison = comparison_of(str(runs.seed1), str(edited))
    assert status == 0
    assert ids(comparison, "edited") == {("single-mro-2007-page-134-pdf-1", 1)}
    assert {case for case, _ in ids(comparison, "removed")} == {dropped}
    assert not comparison.of_kind("regression") and not comparison.of_kind("fix")
    [note] = comparison.notes
    assert note.startswith("different agent files: ")
    assert f"1 case only in base ({dropped})" in note and "1 turn with an edited input" in note
    text_out = compare_cli(str(runs.seed1), str(edited)).stdout
    assert text_out.splitlines()[2].startswith("note: different agent files")


def test_an_interrupted_run_says_which_turns_never_ran(runs: Runs, tmp_path: Path) -> None:
    """The seed-1 report as a Ctrl-C leaves it: the last two cases never sent."""
    raw = json.loads(runs.seed1.read_text(encoding="utf-8"))
    raw["interrupted"] = True
    stopped = raw["results"][-2:]
    for case in stopped:
        case["passed"] = False
        for turn in case["turns"]:
            turn.update(skipped=True, passed=False, errors=["cancelled"], response=None)
    partial = tmp_path / "partial.json"
    partial.write_text(json.dumps(raw), encoding="utf-8")
    status, comparison = comparison_of(str(runs.seed1), str(partial))
    assert status == 0
    never = {(c["test_name"], t["turn_index"]) for c in stopped for t in c["turns"]}
    assert ids(comparison, "not_run") == never
    assert comparison.head.interrupted
    assert any(n.startswith("head was interrupted") for n in comparison.notes)
    text = compare_cli(str(runs.seed1), str(partial)).stdout
    assert f"Not run in head ({len(never)})" in text and "head: not run: cancelled" in text


# -- stored runs -----------------------------------------------------------------------------


def test_stored_runs_previous_latest_and_a_tagged_baseline(runs: Runs, tmp_path: Path) -> None:
    folder = copy_sample(tmp_path)
    shutil.rmtree(folder / ".holodeck", ignore_errors=True)  # runs of the checkout's sample
    cassette = str(folder / "cassettes" / "oracle.json")
    none = compare_cli(cwd=folder)
    assert none.returncode == 2, none.stderr
    assert (
        "no stored runs under the current folder: looked in .holodeck/runs (agent files "
        f"found: agent.yaml); each `holodeck-lsp run {folder.resolve() / 'agent.yaml'}` stores one"
    ) in none.stderr
    run(str(folder), "--replay", cassette)
    one = compare_cli(cwd=folder)
    assert one.returncode == 2
    assert "only one stored run — run again or pass two report files" in one.stderr
    run(str(folder), "--replay", cassette)
    status, comparison = comparison_of(cwd=folder)
    assert status == 0 and comparison.changes == []
    assert (comparison.base.label, comparison.head.label) == ("previous", "latest")
    assert comparison.base.run_id and comparison.head.run_id
    assert comparison.base.run_id < comparison.head.run_id
    assert main(["runs", str(folder), "--tag", "good", "previous"]) == 0
    status, tagged = comparison_of("--baseline", "good", str(runs.seed2), cwd=folder)
    assert status == 1 and tagged.base.run_id == comparison.base.run_id
    prefix = comparison.head.run_id[:-1]  # unique: runs a second apart can share 15 characters
    status, by_prefix = comparison_of(
        "--agent", str(folder / "agent.yaml"), "good", prefix, cwd=tmp_path
    )
    assert status == 0 and by_prefix.head.run_id == comparison.head.run_id


# -- bad arguments ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["missing.json", "other.json"], "no such report file: missing.json"),
        (["--threshold", "-1", "a.json", "b.json"], "--threshold is a score difference"),
        (["--baseline", "x", "a.json", "b.json"], "--baseline names BASE"),
        (["nosuchrun", "latest"], "no stored runs under the current folder: no agent files"),
    ],
)
def test_bad_arguments_exit_2_with_the_cause(args: list[str], message: str, tmp_path: Path) -> None:
    done = compare_cli(*args, cwd=tmp_path)
    assert done.returncode == 2 and message in done.stderr, done.stderr
    assert done.stdout == ""


def test_a_file_that_is_not_a_report_exits_2(runs: Runs, tmp_path: Path) -> None:
    other = tmp_path / "not-a-report.json"
    other.write_text('{"hello": 1}', encoding="utf-8")
    done = compare_cli(str(runs.seed1), str(other))
    assert done.returncode == 2
    assert "is not a holodeck-lsp JSON report" in done.stderr
