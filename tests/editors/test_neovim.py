"""Headless Neovim as a real LSP client: the Lua config from docs/editors/neovim.md starts the
venv's `holodeck-lsp` on a faulty agent.yaml; a driver script (nvim_probe.lua) waits for the
diagnostics, asks for hover and writes both to JSON for the assertions below."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.server.lsp_client import HOME

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "editors" / "neovim.md"
PROBE = Path(__file__).with_name("nvim_probe.lua")

FAULTY = """\
name: nvim-demo
model:
  provider: openia
  name: gpt-4o-mini
instructions:
  inline: "Answer the question."
test_cases:
  - name: first
    input: 25587
    groundtruth: "25587"
"""
#: (0-based line, code) of every diagnostic `holodeck-lsp --check` reports for FAULTY.
EXPECTED = [(2, "HD103"), (8, "HD102"), (9, "HD100")]
#: Hover on the `model` key.
HOVER_AT = (1, 2)


def server_command() -> str:
    """The venv's `holodeck-lsp`, next to the interpreter running the tests."""
    beside = Path(sys.executable).parent / "holodeck-lsp"
    if beside.exists():
        return str(beside)
    found = shutil.which("holodeck-lsp")
    if found is None:
        pytest.fail("holodeck-lsp is not installed (pip install -e '.[dev]')")
    return found


def nvim() -> str:
    found = shutil.which("nvim")
    if found is None:
        message = "nvim (Neovim >= 0.7) is not installed: apt-get install -y neovim"
        if os.environ.get("CI", "").lower() in {"1", "true", "yes"}:
            pytest.fail(f"{message} (.ci/run installs it; required under CI=true)")
        pytest.skip(message)
    return found


def doc_config() -> str:
    """The first ```lua block of docs/editors/neovim.md: the config users copy."""
    match = re.search(r"```lua\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    assert match, f"{DOC} has no ```lua block"
    return match.group(1)


def run_nvim(tmp_path: Path) -> dict[str, Any]:
    executable = nvim()
    config = tmp_path / "holodeck.lua"
    config.write_text(doc_config(), encoding="utf-8")
    suite = tmp_path / "suite"
    suite.mkdir()
    agent = suite / "agent.yaml"
    agent.write_text(FAULTY, encoding="utf-8")
    out = tmp_path / "out.json"
    env = {
        **os.environ,
        "HOME": HOME,
        "XDG_CONFIG_HOME": str(tmp_path / "xdg-config"),
        "XDG_DATA_HOME": str(tmp_path / "xdg-data"),
        "XDG_STATE_HOME": str(tmp_path / "xdg-state"),
        "XDG_CACHE_HOME": str(tmp_path / "xdg-cache"),
        "HOLODECK_LSP_CMD": server_command(),
        "HOLODECK_NVIM_OUT": str(out),
        "HOLODECK_NVIM_HOVER": f"{HOVER_AT[0]},{HOVER_AT[1]}",
    }
    command = [executable, "--headless", "-u", str(config), "-c", f"luafile {PROBE}", str(agent)]
    try:
        done = subprocess.run(
            command,
            cwd=suite,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=60,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"nvim did not quit within 60 s: {error.stdout!r} {error.stderr!r}")
    assert out.exists(), (
        f"nvim wrote no result (exit {done.returncode}):\n{done.stdout}\n{done.stderr}"
    )
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    return result


def test_neovim_gets_diagnostics_and_hover(tmp_path: Path) -> None:
    result = run_nvim(tmp_path)
    assert result["errors"] == [], result
    assert result["clients"] == 1
    diagnostics = result["diagnostics"]
    assert sorted((d["line"], d["code"]) for d in diagnostics) == EXPECTED, diagnostics
    assert all(d["source"] == "holodeck" and d["message"] for d in diagnostics)
    messages = {d["code"]: d["message"] for d in diagnostics}
    assert "did you mean `ground_truth`?" in messages["HD100"]
    hover = result["hover"]
    assert isinstance(hover, dict), result
    contents = hover["contents"]
    value = contents["value"] if isinstance(contents, dict) else str(contents)
    assert value.strip(), hover
    assert "model" in value
