""":HoloDeckConversation in headless Neovim 0.7.2 (the oldest supported), with the plugin of
editors/nvim/ trusted on a copy of sample/financial-assistant replaying its cassette:
nvim_conversation_probe.lua asks for the conversation of the first case before any run (a
warning saying why, no buffer), runs the case, asks again and reads back the read-only
Markdown buffer `holodeck://conversation/<case>` it opens, whose turns carry the run's verdicts."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.editors.test_neovim import (
    CASSETTE,
    SAMPLE,
    case_turn_spans,
    nvim_env,
    plugin_config,
    run_headless,
)

pytestmark = pytest.mark.slow  # a real Neovim and server, a replayed case

PROBE = Path(__file__).with_name("nvim_conversation_probe.lua")
WARN = 3  # vim.log.levels.WARN


def test_holodeck_conversation_opens_the_case_run_as_its_conversation(tmp_path: Path) -> None:
    suite = tmp_path / "financial-assistant"
    shutil.copytree(SAMPLE, suite, ignore=shutil.ignore_patterns("__pycache__", ".holodeck"))
    agent = suite / "agent.yaml"
    lines = agent.read_text(encoding="utf-8").splitlines()
    first_turn = case_turn_spans(lines)[0][0][0]
    name = lines[first_turn - 2].split(":", 1)[1].strip(' "')  # `- name:` then `turns:`
    out = tmp_path / "out.json"
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps({"out": str(out), "cursor": first_turn}), encoding="utf-8")
    config = plugin_config(trusted=[str(suite)], cassette=CASSETTE)
    env = {**nvim_env(tmp_path), "HOLODECK_NVIM_SPEC": str(spec_file)}

    result = run_headless(config, PROBE, agent, out, env, "0.7")

    assert result["errors"] == [], result
    before, *after = result["notifications"]
    assert before["level"] == WARN, before
    assert before["message"].startswith("HoloDeckConversation: no run of this file"), before
    [case] = result["answer"]["results"]
    assert case["test_name"] == name, (case["test_name"], name)
    opened = result["opened"]
    assert opened is not None, result
    assert opened["name"] == f"holodeck://conversation/{name}", opened["name"]
    assert (opened["filetype"], opened["buftype"]) == ("markdown", "nofile"), opened
    assert opened["modifiable"] is False, opened
    shown = opened["lines"]
    assert shown[0] == f"# {name} (case #0) — {result_agent_name(lines)}", shown[:3]
    verdicts = [
        f"## Turn {turn['turn_index']} · {'passed' if turn['passed'] else 'failed'}"
        for turn in case["turns"]
    ]
    assert [line for line in shown if line.startswith("## Turn ")] == verdicts, shown
    inputs = [line for line in shown if line.startswith("**user:** ")]
    assert inputs == [
        f"**user:** {turn['input'].strip().splitlines()[0]}" for turn in case["turns"]
    ]
    assert any(line.startswith("- tool `") and " → " in line for line in shown), shown
    assert "**why it failed:**" in shown, shown  # the cassette fails a turn of this case
    assert not [n for n in after if n["level"] >= WARN and "Conversation" in n["message"]], after


def result_agent_name(lines: list[str]) -> str:
    line = next(line for line in lines if line.startswith("name:"))
    return line.split(":", 1)[1].strip(' "')
