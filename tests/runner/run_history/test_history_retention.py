"""Retention (retention.py): the newest N runs of each agent file stay, tagged runs are never
pruned, 0 keeps everything; the setting from --keep or $HOLODECK_RUNS_KEEP."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.runner.run_history import keep_setting, list_runs, prune, runs_folder
from holodeck_lsp.runner.run_history.retention import DEFAULT_KEEP, KeepSettingError
from holodeck_lsp.runner.run_history.tags import write_tags
from tests.runner.run_history.history_suite import replay, write_suite


def test_run_keep_prunes_old_runs_but_never_a_tagged_one(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path)
    folder = runs_folder(tmp_path)
    assert replay(tmp_path, cassette) == 0
    [first] = list_runs(folder)
    write_tags(folder, {"baseline": first.id})
    for _ in range(4):
        assert replay(tmp_path, cassette, "--keep", "2") == 0
    ids = [run.id for run in list_runs(folder)]
    assert len(ids) == 3 and ids[0] == first.id  # the baseline and the newest two
    assert not [p for p in folder.iterdir() if p.name.startswith(".")]  # nothing half-deleted


def test_prune_is_per_agent_file_and_0_keeps_all(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path)
    other = tmp_path / "other.agent.yaml"
    other.write_text((tmp_path / "agent.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    from holodeck_lsp.cli import main

    for _ in range(3):
        assert replay(tmp_path / "agent.yaml", cassette, "--keep", "0") == 0
        assert main(["run", str(other), "--replay", str(cassette), "--quiet"]) == 0
    folder = runs_folder(tmp_path)
    assert len(list_runs(folder)) == 6
    assert prune(folder, 0) == []
    removed = prune(folder, 1, "agent.yaml")
    assert [run.meta.agent_file for run in removed] == ["agent.yaml", "agent.yaml"]
    assert len(list_runs(folder, "other.agent.yaml")) == 3
    prune(folder, 2)
    assert len(list_runs(folder, "other.agent.yaml")) == 2
    assert len(list_runs(folder, "agent.yaml")) == 1


def test_the_keep_setting() -> None:
    assert keep_setting(None, {}) == DEFAULT_KEEP == 20
    assert keep_setting(None, {"HOLODECK_RUNS_KEEP": "7"}) == 7
    assert keep_setting(3, {"HOLODECK_RUNS_KEEP": "7"}) == 3  # the flag wins
    for bad in ("many", "-1"):
        with pytest.raises(KeepSettingError, match=r"\$HOLODECK_RUNS_KEEP is .*0 keeps all"):
            keep_setting(None, {"HOLODECK_RUNS_KEEP": bad})


def test_a_bad_keep_setting_is_a_usage_error_before_the_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = write_suite(tmp_path)
    monkeypatch.setenv("HOLODECK_RUNS_KEEP", "lots")
    assert replay(tmp_path, cassette) == 2
    assert "HOLODECK_RUNS_KEEP is 'lots'" in capsys.readouterr().err
    assert not (tmp_path / ".holodeck" / "runs").exists()
