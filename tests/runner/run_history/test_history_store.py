"""Storing runs (runner/run_history/store.py, after_run.py) through real replayed runs of the
CLI: the three files, what run.json says, atomic writes, unique ids, a `.holodeck/` that
cannot be written, and the recording replaying to the same results."""

from __future__ import annotations

import json
import subprocess
from datetime import datetime
from pathlib import Path

import pytest

from holodeck_lsp.runner.cassette import comparable
from holodeck_lsp.runner.run_history import (
    RunToStore,
    after_run,
    list_runs,
    new_run_id,
    resolve,
    runs_folder,
    save_run,
)
from holodeck_lsp.runner.run_history.layout import is_run_id
from holodeck_lsp.runner.secrets import Redactor
from tests.runner.run_history.history_suite import replay, run_folders, write_suite


def test_a_run_is_stored_with_report_recording_and_metadata(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path)
    assert replay(tmp_path, cassette, "--report-json", str(tmp_path / "r.json")) == 0
    [folder] = run_folders(tmp_path)
    assert is_run_id(folder.name)
    # The journal the run kept while it ran stays beside the run (`run --resume` reads it).
    assert sorted(p.name for p in folder.iterdir()) == [
        "journal.jsonl",
        "recording.json",
        "report.json",
        "run.json",
    ]
    meta = json.loads((folder / "run.json").read_text(encoding="utf-8"))
    assert meta["format_version"] == 1 and meta["id"] == folder.name
    assert meta["agent_file"] == "agent.yaml" and meta["mode"] == "replay"
    assert meta["replay_of"] == "cassette.json"  # relative to the agent's folder
    assert meta["models"] == ["openai:gpt-4o-mini"] and meta["repeats"] == 1
    assert meta["cases"] == {"passed": 2, "total": 2}
    assert meta["turns"] == {"passed": 3, "total": 3}
    assert meta["interrupted"] is False
    import hashlib

    digest = hashlib.sha256((tmp_path / "agent.yaml").read_bytes()).hexdigest()
    assert meta["agent_sha256"] == digest
    assert datetime.fromisoformat(meta["started"]) <= datetime.fromisoformat(meta["ended"])
    assert datetime.fromisoformat(meta["started"]).tzinfo is not None
    # The stored report and the --report-json one are the same run, both naming its id.
    stored = json.loads((folder / "report.json").read_text(encoding="utf-8"))
    written = json.loads((tmp_path / "r.json").read_text(encoding="utf-8"))
    assert stored["run_id"] == written["run_id"] == folder.name
    # `.holodeck/` ignores itself: the history is never committed.
    assert (tmp_path / ".holodeck" / ".gitignore").read_text(encoding="utf-8").endswith("*\n")


def test_the_stored_recording_replays_to_the_same_results(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path, ("206588", "wrong", "yes"))
    assert replay(tmp_path, cassette) == 1
    first = resolve("latest", runs_folder(tmp_path / "agent.yaml"))
    assert replay(tmp_path, first.recording_path) == 1
    second = resolve("latest", runs_folder(tmp_path / "agent.yaml"))
    assert second.id != first.id
    assert second.meta.replay_of == f".holodeck/runs/{first.id}/recording.json"
    before, after = first.load_report(), second.load_report()
    assert (before.run_id, after.run_id) == (first.id, second.id)
    assert comparable(before) == comparable(after)  # run ids apart, the same run


def test_no_save_stores_nothing(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path)
    assert replay(tmp_path, cassette, "--no-save") == 0
    assert not (tmp_path / ".holodeck" / "runs").exists()


def test_ids_of_runs_in_the_same_second_are_unique(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path)
    assert replay(tmp_path, cassette, "--no-save", "--report-json", str(tmp_path / "r.json")) == 0
    from holodeck_lsp.commands.report import read_report

    report = read_report(tmp_path / "r.json")
    assert report is not None
    started = datetime.now().astimezone()
    runs = [
        save_run(RunToStore(tmp_path / "agent.yaml", report, started, started), Redactor())
        for _ in range(30)
    ]
    assert len({run.id for run in runs}) == 30
    assert {run.id[:15] for run in runs} == {new_run_id(started)[:15]}
    assert [run.id for run in list_runs(runs_folder(tmp_path))] == sorted(r.id for r in runs)


def test_a_half_written_run_is_never_listed(tmp_path: Path) -> None:
    """What a crash mid-write leaves (the hidden temporary folder) is not a run."""
    cassette = write_suite(tmp_path)
    assert replay(tmp_path, cassette) == 0
    runs = tmp_path / ".holodeck" / "runs"
    crashed = runs / ".writing-20261201-000000-abcd-999"
    crashed.mkdir()
    (crashed / "report.json").write_text("{", encoding="utf-8")
    assert len(list_runs(runs)) == 1
    assert not any(p.name.startswith(".writing-") for p in runs.iterdir() if p != crashed)


def _block_history(folder: Path) -> None:
    # As root (this machine's CI) a chmod does not stop writes: a file where the runs
    # folder must go fails the same way for every user.
    (folder / ".holodeck").mkdir()
    (folder / ".holodeck" / "runs").write_text("not a folder\n", encoding="utf-8")


def test_an_unwritable_history_warns_once_and_the_run_still_succeeds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(after_run, "_warned", False)
    cassette = write_suite(tmp_path)
    _block_history(tmp_path)
    report = tmp_path / "r.json"
    assert replay(tmp_path, cassette, "--report-json", str(report)) == 0
    assert replay(tmp_path, cassette) == 0  # the same process: no second warning
    err = capsys.readouterr().err
    assert err.count("warning: this run was not saved to the history") == 1, err
    assert "cannot write" in err and "--no-save" in err
    assert json.loads(report.read_text(encoding="utf-8"))["summary"]["passed"] == 2


@pytest.mark.skipif(
    __import__("os").geteuid() == 0, reason="root writes to read-only folders"
)  # the file-in-the-way test above covers the same path as root
def test_a_read_only_holodeck_folder(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(after_run, "_warned", False)
    cassette = write_suite(tmp_path)
    (tmp_path / ".holodeck").mkdir()
    (tmp_path / ".holodeck").chmod(0o555)
    try:
        assert replay(tmp_path, cassette) == 0
    finally:
        (tmp_path / ".holodeck").chmod(0o755)
    assert not (tmp_path / ".holodeck" / "runs").exists()


def test_the_git_commit_and_dirty_flag_are_stored(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path)
    git = ["git", "-c", "user.name=t", "-c", "user.email=t@example.com"]
    subprocess.run([*git, "init", "-q"], cwd=tmp_path, check=True)
    subprocess.run([*git, "add", "agent.yaml"], cwd=tmp_path, check=True)
    subprocess.run([*git, "commit", "-qm", "suite"], cwd=tmp_path, check=True)
    head = subprocess.run(
        ["git", "rev-parse", "HEAD"], cwd=tmp_path, capture_output=True, text=True, check=True
    ).stdout.strip()
    assert replay(tmp_path, cassette) == 0
    clean = resolve("latest", runs_folder(tmp_path)).meta
    assert (clean.git_commit, clean.git_dirty) == (head, False)
    with (tmp_path / "agent.yaml").open("a", encoding="utf-8") as file:
        file.write("# edited\n")
    assert replay(tmp_path, cassette) == 0
    dirty = resolve("latest", runs_folder(tmp_path)).meta
    assert (dirty.git_commit, dirty.git_dirty) == (head, True)
    # Outside a repository: no git fields, no error.
    other = tmp_path.parent / f"{tmp_path.name}-nogit"
    cassette = write_suite(other)
    assert replay(other, cassette) == 0
    meta = resolve("latest", runs_folder(other)).meta
    assert meta.git_commit is None and meta.git_dirty is None
