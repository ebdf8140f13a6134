""":HoloDeckCompare in headless Neovim (0.7.2 and 0.11), with the plugin of editors/nvim/ and
its default options (test_neovim.plugin_config), on a run history stored by the real
CLI (tests/server/runs/stored_history.py: bad, good, bad): nvim_compare_probe.lua runs the
command and reads back what it opens — a scratch Markdown buffer with what `holodeck-lsp
compare --format markdown` prints for the same runs, naming the regressed turns — and, in a
suite with no stored run, the warning it shows instead (no window, no error)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.editors.shared_history import history_copy
from tests.editors.test_neovim import nvim_env, plugin_config, run_headless, version
from tests.server.runs.run_suite import write_suite
from tests.server.runs.stored_history import cli, stored_ids

__all__ = ["version"]  # the Neovim-version fixture, used by name below

pytestmark = pytest.mark.slow  # three CLI runs for the history, a Neovim and a server per test

PROBE = Path(__file__).with_name("nvim_compare_probe.lua")
WARN = 3  # vim.log.levels.WARN


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return history_copy(tmp_path_factory.mktemp("nvim-history") / "suite")


def compare_in_nvim(tmp_path: Path, suite: Path, version: str) -> dict[str, Any]:
    config = plugin_config()  # the plugin with its defaults
    out = tmp_path / "out.json"
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps({"out": str(out)}), encoding="utf-8")
    env = {**nvim_env(tmp_path), "HOLODECK_NVIM_SPEC": str(spec_file)}
    return run_headless(config, PROBE, suite / "agent.yaml", out, env, version)


def test_holodeck_compare_opens_the_comparison_in_a_markdown_buffer(
    history: Path, tmp_path: Path, version: str
) -> None:
    result = compare_in_nvim(tmp_path, history, version)

    assert result["errors"] == [], result
    assert result["version"].startswith(version), result["version"]
    assert result["clients"] == 1
    assert result["notifications"] == [], result  # nothing to warn about
    assert "Error" not in result["messages"] and "E5" not in result["messages"], result
    assert result["windows"] == result["windows_before"] + 1, result
    opened = result["opened"]
    assert opened is not None, result
    assert (opened["filetype"], opened["buftype"]) == ("markdown", "nofile"), opened
    shown = "\n".join(opened["lines"])
    # The latest stored run (bad) against the one before it (good), in the tables the CLI
    # prints for the same two runs (the sides' labels above them are the editor's own).
    ids = stored_ids(history)
    printed = cli(history, "compare", ids[1], ids[2], "--format", "markdown")
    tables = printed[printed.index("### Regressions") :].strip()
    assert shown.strip().endswith(tables), shown
    assert "### Regressions (2)" in tables, tables
    regressed = [line for line in opened["lines"] if line.startswith("| two-turns turn 0 ")]
    assert regressed and "passed → failed" in regressed[0], shown
    assert any(line.startswith("| single turn 0 ") for line in opened["lines"]), shown
    sides = [line for line in opened["lines"] if line.startswith(("- **Base:**", "- **Head:**"))]
    assert len(sides) == 2 and ids[1] in sides[0] and ids[2] in sides[1], sides


def test_holodeck_compare_without_a_stored_run_warns_and_opens_nothing(
    tmp_path: Path, version: str
) -> None:
    suite = tmp_path / "suite"
    suite.mkdir()
    write_suite(suite)  # never run: no .holodeck/runs/
    result = compare_in_nvim(tmp_path, suite, version)

    assert result["errors"] == [], result
    assert result["clients"] == 1
    assert result["windows"] == result["windows_before"], result  # no empty buffer
    assert result["opened"] is None, result
    [said] = result["notifications"]
    assert said["level"] == WARN, said
    assert said["message"].startswith("HoloDeckCompare: no stored run"), said
    assert "E5" not in result["messages"], result  # no Lua error, only the warning
