"""Regression marks in headless Neovim (0.7.2 and 0.11), with the plugin of editors/nvim/
(installed and configured as in test_neovim.py, the suite trusted): on the suite of
tests/server/runs/run_suite.py with two runs stored by the real CLI — a good one (its
cassette: turn 0 of `two-turns` and the `single` case pass) and a later bad one (they fail) —
nvim_regression_probe.lua reads the code lenses through Neovim's own support
(`vim.lsp.codelens.refresh` / `get`, and the virtual text it draws) and the hover
(`vim.lsp.buf.hover`, the floating window's lines) on a turn that regressed and on one that
was fixed (turn 1 of `two-turns`: the bad cassette calls the tool right, the good one not)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.editors.test_neovim import nvim_env, plugin_config, run_headless, version
from tests.server.runs.run_suite import (
    CASES_LINE,
    SINGLE_LINE,
    TURN0_LINE,
    TURN1_LINE,
    write_suite,
)
from tests.server.runs.stored_history import bad_cassette, cli, stored_ids

__all__ = ["version"]  # the Neovim-version fixture, used by name below

pytestmark = pytest.mark.slow  # two CLI runs for the history, a Neovim and a server per test

PROBE = Path(__file__).with_name("nvim_regression_probe.lua")
#: The `Run all` lens's line: the `test_cases:` key, just above the first case.
ALL_LINE = CASES_LINE - 1


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The suite with two stored runs: the good cassette's, then the bad one's."""
    root = tmp_path_factory.mktemp("nvim-regressions")
    write_suite(root)
    (root / "bad.cassette.json").write_text(json.dumps(bad_cassette()), encoding="utf-8")
    for cassette in ("run.cassette.json", "bad.cassette.json"):
        cli(root, "run", "agent.yaml", "--replay", cassette, "--quiet")
    return root


def marks_in_nvim(tmp_path: Path, history: Path, version: str) -> tuple[list[str], dict[str, Any]]:
    suite = tmp_path / "suite"
    shutil.copytree(history, suite)  # the server may store and cache beside the agent
    ids = stored_ids(suite)
    out = tmp_path / "out.json"
    spec = {"out": str(out), "hover": [(TURN0_LINE, 10), (TURN1_LINE, 10)]}
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    env = {**nvim_env(tmp_path), "HOLODECK_NVIM_SPEC": str(spec_file)}
    config = plugin_config(trusted=[str(suite)])  # untrusted, the lenses only say why not
    return ids, run_headless(config, PROBE, suite / "agent.yaml", out, env, version)


def test_lenses_and_hover_mark_the_turns_that_regressed(
    history: Path, tmp_path: Path, version: str
) -> None:
    ids, result = marks_in_nvim(tmp_path, history, version)

    assert result["errors"] == [], result
    assert result["version"].startswith(version), result["version"]
    assert result["clients"] == 1
    assert len(ids) == 2, ids
    good = ids[0]  # the baseline: the run before the latest
    # The lenses Neovim stores: the latest stored run (bad) against the one before (good).
    # Turn 1 of `two-turns` was fixed: lenses mark regressions only.
    expected = [
        (ALL_LINE, f"▶ Run all · ⇣ 2 regressed vs {good}"),
        (CASES_LINE, "▶ Run case · ⇣ 1 regressed"),
        (TURN0_LINE, "▶ Run turn 0 · ⇣ regressed"),
        (TURN1_LINE, "▶ Run turn 1"),
        (SINGLE_LINE, "▶ Run case · ⇣ regressed"),
        (SINGLE_LINE, "▶ Run turn 0 · ⇣ regressed"),
    ]
    stored = sorted((lens["line"], lens["title"]) for lens in result["lenses"])
    assert stored == sorted(expected), result["lenses"]
    # What Neovim draws: each line's lenses as end-of-line virtual text, joined with " | ".
    drawn = {mark["line"]: mark["text"] for mark in result["drawn"]}
    assert drawn[ALL_LINE] == expected[0][1], drawn
    assert drawn[TURN0_LINE] == "▶ Run turn 0 · ⇣ regressed", drawn
    assert drawn[TURN1_LINE] == "▶ Run turn 1", drawn
    assert drawn[SINGLE_LINE] == "▶ Run case · ⇣ regressed | ▶ Run turn 0 · ⇣ regressed", drawn

    # The hover (K) on the regressed turn: the mark, the baseline run, the verdicts and the
    # metric's scores; on turn 1 the fix.
    regressed, fixed = result["hovers"]
    assert regressed is not None, result
    assert regressed.startswith(f"**⇣ Regressed** against run {good}"), regressed
    assert "before: ✓ passed → now: ✗ failed" in regressed, regressed
    assert "numeric" in regressed and "1.00 → 0.00" in regressed, regressed
    assert fixed is not None, result
    assert fixed.startswith(f"**⇡ Fixed** against run {good}"), fixed
    assert "before: ✗ failed → now: ✓ passed" in fixed and "Regressed" not in fixed, fixed
