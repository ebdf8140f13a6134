"""`M-x holodeck-conversation` in Emacs (batch mode) with eglot 1.9, configured with the eglot
block of docs/editors/emacs.md and its conversation command (as test_emacs_eglot_more.py): on
a copy of sample/financial-assistant replaying its cassette, eglot_more_probe.el calls the
command on the first case before any run (it says why there is nothing, no buffer), picks
**HoloDeck: Run case** from `eglot-code-actions`, calls the command again and reads the
read-only buffer it fills: the case's conversation with the run's verdicts."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.editors.test_emacs_eglot import (
    UNTRUSTED,
    doc_snippet,
    eglot_block,
    emacs_with_eglot,
    run_emacs,
)
from tests.editors.test_emacs_eglot_more import PROBE, copy_sample, first_input_line, shown_buffer
from tests.editors.test_neovim import CASSETTE
from tests.server.lsp_client import installed_server

pytestmark = pytest.mark.slow  # a real Emacs and server, a replayed case

CONVERSATION_LINE = ";; holodeck-lsp: M-x holodeck-conversation"


def conversation_in_emacs(tmp_path: Path, agent: Path, buffer: str) -> dict[str, Any]:
    emacs = emacs_with_eglot()
    block = eglot_block()
    options = f'(:trusted t :cassettePath "{CASSETTE}")'
    config = block.replace(UNTRUSTED, options).replace(
        '"holodeck-lsp"', json.dumps(installed_server())
    )
    config_file = tmp_path / "init.el"
    config_file.write_text(config + "\n" + doc_snippet(CONVERSATION_LINE), encoding="utf-8")
    spec = {
        "out": str(tmp_path / "out.json"),
        "agent": str(agent),
        "step": "conversation",
        "at": first_input_line(agent),
        "buffer": buffer,
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    return run_emacs(emacs, config_file, PROBE, spec_file, cwd=agent.parent, home=tmp_path / "home")


def test_holodeck_conversation_shows_the_case_run_in_emacs(tmp_path: Path) -> None:
    agent = copy_sample(tmp_path)
    lines = agent.read_text(encoding="utf-8").splitlines()
    at = first_input_line(agent)
    name = lines[at - 2].split(":", 1)[1].strip(' "')  # `- name:`, `turns:`, `- input:`

    result = conversation_in_emacs(tmp_path, agent, f"*HoloDeck conversation: {name}*")

    before = result["conversation_before"]
    assert before["message"].startswith("HoloDeck conversation: no run of this file"), before
    assert before["buffer"] is None, before
    [case] = result["answer"]["results"]
    assert case["test_name"] == name, (case["test_name"], name)
    shown = shown_buffer(result, "conversation")["text"].splitlines()
    assert shown[0].startswith(f"# {name} (case #0) — "), shown[:3]
    verdicts = [
        f"## Turn {turn['turn_index']} · {'passed' if turn['passed'] else 'failed'}"
        for turn in case["turns"]
    ]
    assert [line for line in shown if line.startswith("## Turn ")] == verdicts, shown
    assert any(line.startswith("- tool `") and " → " in line for line in shown), shown
    assert "**why it failed:**" in shown, shown
