"""`runs --prune` on a run folder that is a symbolic link (retention.py): the link is
removed, what it points to (here outside `.holodeck/runs/`) stays whole, nothing is left
behind under a `.deleting-` name, and the message says so."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from holodeck_lsp.cli import main
from holodeck_lsp.runner.run_history import list_runs, runs_folder
from holodeck_lsp.runner.run_history.retention import prune
from tests.runner.run_history.history_suite import replay, write_suite


def linked_oldest(tmp_path: Path) -> tuple[Path, Path, str]:
    """Two runs, the older one moved out of the history and linked back in."""
    cassette = write_suite(tmp_path / "suite")
    for _ in range(2):
        assert replay(tmp_path / "suite", cassette, "--keep", "0") == 0
    folder = runs_folder(tmp_path / "suite")
    oldest = list_runs(folder)[0]
    elsewhere = tmp_path / "kept-elsewhere" / oldest.id
    elsewhere.parent.mkdir()
    oldest.folder.rename(elsewhere)
    os.symlink(elsewhere, oldest.folder, target_is_directory=True)
    return folder, elsewhere, oldest.id


def test_pruning_a_linked_run_removes_the_link_only(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder, elsewhere, run_id = linked_oldest(tmp_path)
    files = sorted(p.name for p in elsewhere.iterdir())
    assert main(["runs", str(tmp_path / "suite"), "--prune", "--keep", "1"]) == 0
    out = capsys.readouterr().out
    assert "pruned 1 run" in out
    assert f"{run_id} was a link: the link is removed, {elsewhere} is left in place" in out
    assert not (folder / run_id).exists() and not (folder / run_id).is_symlink()
    assert [p.name for p in folder.iterdir() if p.name.startswith(".deleting-")] == []
    assert sorted(p.name for p in elsewhere.iterdir()) == files  # the target is whole
    assert [run.id for run in list_runs(folder)] != [run_id]


def test_a_link_left_by_an_earlier_prune_is_swept_and_its_target_kept(tmp_path: Path) -> None:
    folder, elsewhere, run_id = linked_oldest(tmp_path)
    (folder / run_id).rename(folder / f".deleting-{run_id}")
    assert prune(folder, 5) == []
    assert not (folder / f".deleting-{run_id}").is_symlink()
    assert (elsewhere / "run.json").is_file()
