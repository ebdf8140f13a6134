"""Cancelling a run from headless Neovim (0.7.2 and 0.11) with the plugin of editors/nvim/
(installed and configured as in test_neovim.py): a trusted suite whose model is the fake
OpenAI server of tests/fakes/openai_server.py, answering every chat request only after
SLOW_REPLY seconds. nvim_cancel_probe.lua starts `:HoloDeckRun all`, waits until the run's
`$/progress` says its turns are running and the fake model was asked (the file it writes),
cancels it with `require("holodeck").cancel(done)`
and waits for the run to end; then `:HoloDeckCancel` once more, with nothing running.

The fake server runs on the test's event loop while Neovim runs in a thread
(`asyncio.to_thread` around test_neovim.run_headless), so the server Neovim starts can call it.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from tests.editors.test_neovim import NVIM_TIMEOUT, nvim_env, plugin_config, run_headless, version
from tests.fakes.openai_server import FakeOpenAIServer, Reply

__all__ = ["version"]  # the Neovim-version fixture, used by name below

pytestmark = pytest.mark.slow  # a real Neovim, server and (live) backend per test

PROBE = Path(__file__).with_name("nvim_cancel_probe.lua")
INFO, WARN = 2, 3  # vim.log.levels
#: How long the fake model takes over each answer: a run of AGENT's three cases takes three
#: times this uncancelled (they run one at a time).
SLOW_REPLY = 10.0
#: The run must end this soon after the cancel: before the answer in flight would have come
#: (SLOW_REPLY after it was asked for; the probe cancels as soon as the fake model marks the
#: request — ASKED beside the agent —, milliseconds after it, far less than this margin).
END_WITHIN_MS = int(SLOW_REPLY * 1000) - 1500
#: The file the fake model's responder writes when it is asked (the probe waits for it).
ASKED = "model.asked"
API_KEY = "sk-nvim-cancel-test-7b3e"

AGENT = """\
name: slow-model
model:
  provider: openai
  name: gpt-4o-mini
  endpoint: "{endpoint}"
instructions:
  inline: "Answer with the number only."
evaluations:
  metrics:
    - type: standard
      metric: numeric
test_cases:
  - name: first
    input: "What is 3 plus 4?"
    ground_truth: "7"
  - name: second
    input: "What is 2 plus 5?"
    ground_truth: "7"
  - name: third
    input: "What is 1 plus 6?"
    ground_truth: "7"
"""
CASES = ["first", "second", "third"]


def live_env(tmp_path: Path) -> dict[str, str]:
    """Neovim's environment (test_neovim.nvim_env) with the fake key, and nothing
    OpenAI-related from the developer's."""
    env = {
        name: value
        for name, value in nvim_env(tmp_path).items()
        if not name.startswith(("OPENAI_", "AZURE_OPENAI_"))
    }
    return {**env, "OPENAI_API_KEY": API_KEY}


async def cancel_in_nvim(tmp_path: Path, version: str, server: FakeOpenAIServer) -> dict[str, Any]:
    suite = tmp_path / "suite"
    suite.mkdir()
    agent = suite / "agent.yaml"
    agent.write_text(AGENT.format(endpoint=f"{server.base_url}/v1"), encoding="utf-8")
    out = tmp_path / "out.json"
    spec = {"out": str(out), "asked": str(suite / ASKED), "end_within_ms": END_WITHIN_MS}
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    env = {**live_env(tmp_path), "HOLODECK_NVIM_SPEC": str(spec_file)}
    config = plugin_config(trusted=[str(suite)])  # no cassette: the live (fake) model
    return await asyncio.to_thread(
        run_headless, config, PROBE, agent, out, env, version, 2 * NVIM_TIMEOUT
    )


async def test_holodeck_cancel_stops_a_run_all_waiting_on_a_slow_model(
    tmp_path: Path, version: str, fake_openai: FakeOpenAIServer
) -> None:
    def slow_reply(body: dict[str, Any]) -> Reply:
        (tmp_path / "suite" / ASKED).touch()  # the probe cancels once the model is asked
        return Reply(text="7", delay=SLOW_REPLY)

    fake_openai.responder = slow_reply
    result = await cancel_in_nvim(tmp_path, version, fake_openai)

    assert result["errors"] == [], result
    assert result["version"].startswith(version), result["version"]
    assert result["clients"] == 1
    timings = result["timings"]
    # The model was asked before the cancel (one case runs at a time), and never answered.
    assert 1 <= len(fake_openai.chat_requests) < len(CASES), fake_openai.chat_requests

    # The cancel: the command's answer, and what the plugin says.
    assert result["cancel_done"] == {"status": "cancelling"}, result
    notifications = [(n["message"], n["level"]) for n in result["notifications"]]
    assert ("HoloDeckCancel: cancelling", INFO) in notifications, notifications
    # The run ended promptly (the probe waits END_WITHIN_MS at most, less than the answer in
    # flight takes), as cancelled.
    answers = {a["command"]: a for a in result["answers"]}
    run = answers["holodeck.runAll"]
    assert run["status"] == "cancelled", run
    assert run["ms"] - timings["cancel_ms"] < END_WITHIN_MS, timings
    # Not every case ran: none was answered, each is skipped as cancelled.
    results = run["result"]["results"]
    assert [case["test_name"] for case in results] == CASES, results
    for case in results:
        assert case["passed"] is False and case.get("agent_response") is None, case
        assert "skipped: cancelled" in case["errors"], case
    assert run["result"]["summary"]["passed"] == 0, run["result"]["summary"]
    # What the plugin says when the run ends: the run's status and its summary, as a warning.
    [ended] = [n for n in result["notifications"] if n["message"].startswith("HoloDeckRun all")]
    assert ended["message"].startswith("HoloDeckRun all: cancelled: 0 passed, "), ended
    assert ended["message"].endswith(" not run"), ended  # counted apart from failed
    assert ended["level"] == WARN, ended
    assert ended["ms"] > timings["cancel_ms"], (ended, timings)
    # Turns never sent are not failures: no "skipped: cancelled" in the quickfix list.
    quickfix = result["quickfix"]["items"] if result["quickfix"] is not None else []
    assert not [item for item in quickfix if "cancelled" in item["text"]], quickfix
    # The progress Neovim keeps for statusline plugins began, ran, and ended as cancelled.
    kinds = [value["kind"] for value in result["progress"]]
    assert kinds[0] == "begin" and kinds[-1] == "end", result["progress"]
    assert result["progress"][0]["title"] == f"HoloDeck: run {len(CASES)} cases", result
    assert result["progress"][-1]["message"].endswith(" (cancelled)"), result["progress"]

    # Afterwards :HoloDeckCancel has nothing to stop, and says so.
    assert answers["holodeck.cancelRun"]["status"] == "idle", result["answers"]
    assert notifications[-1] == ("HoloDeckCancel: nothing running", INFO), notifications
    assert "E5" not in result["messages"], result["messages"]  # no Lua error
