"""`holodeck-lsp run` as a real process on a simulated-user case: the agent on the fake
OpenAI server, the simulated user on the fake Anthropic server (different providers, real
wires). The conversation, its grading per turn and at the end, the simulator's failures kept
apart from the agent's, and a recording replayed deterministically with no server at all."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.runner.cassette import comparable
from tests.fakes.anthropic_server import ErrorReply, FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCall
from tests.fakes.simulated_user import anthropic_user, sent_to_simulator
from tests.runner.test_run_cli_live import (
    API_KEY,
    TOOLS,
    child_env,
    finish,
    read_report,
    run_cli,
    start,
)

pytestmark = pytest.mark.slow

INSTRUCTIONS = (
    "You are Yusuf Rossi. Your order is W2378156 and you want to know what is left to pay "
    "on it, then you are done. Never say your postcode."
)

AGENT = """\
name: shop
model: {{provider: openai, name: gpt-4o-mini, endpoint: "{agent}"}}
instructions: {{inline: "Help the customer."}}
tools:
  - {{name: subtract, type: function, description: "a minus b", file: tools.py,
      function: subtract}}
test_cases:
"""
CASE = """\
  - name: {name}
    turns:
      - input: "Hi, I need help with an order."
    simulated_user:
      instructions: "{instructions}"
      model: {{provider: anthropic, name: claude-haiku-4-5, endpoint: "{user}", temperature: 0.0}}
      max_turns: {max_turns}
      at_turn:
        - turn: 2
          expected_tools: [{{name: subtract, args: {{a: 1300, b: 65}}}}]
      at_end:
        expected_tools: [subtract]
        communicate_info: ["$1,235"]
"""

#: The agent: asks for the order, then computes and says the balance.
AGENT_REPLIES = (
    Reply(text="Sure, what is your order number?"),
    Reply(tool_calls=[ToolCall("tools-subtract", {"a": 1300, "b": 65})]),
    Reply(text="Order W2378156 has $1235 left to pay."),
)


def write_agent(
    folder: Path,
    agent_url: str,
    user_url: str,
    cases: tuple[tuple[str, int], ...] = (("balance", 3),),
) -> Path:
    """The shop agent with one simulated-user case per (name, max_turns)."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tools.py").write_text(TOOLS.replace("int", "float"), encoding="utf-8")
    text = AGENT.format(agent=agent_url) + "".join(
        CASE.format(name=name, user=user_url, instructions=INSTRUCTIONS, max_turns=max_turns)
        for name, max_turns in cases
    )
    path = folder / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    return path


def _env(tmp_path: Path) -> dict[str, str]:
    return child_env(tmp_path, OPENAI_API_KEY=API_KEY, ANTHROPIC_API_KEY="sk-ant-test-41c9e2")


async def test_a_conversation_graded_per_turn_and_at_end_replayed_and_its_user_replayed(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_anthropic: FakeAnthropicServer
) -> None:
    fake_openai.script(*AGENT_REPLIES)
    fake_anthropic.script(
        *anthropic_user("My order is W2378156. What is left to pay?", "Thanks! ###STOP###")
    )
    agent = write_agent(tmp_path / "suite", fake_openai.base_url, fake_anthropic.base_url)
    report_path, cassette = tmp_path / "report.json", tmp_path / "cassette.json"
    args = [str(agent), "--report-json", str(report_path), "--record", str(cassette)]
    done = await run_cli(args, _env(tmp_path), tmp_path)
    assert done.status == 0, done.out + done.err
    report = read_report(report_path)
    [result] = report.results
    assert result.passed and not result.simulator_failed
    assert [t.user_source for t in result.turns or []] == ["scripted", "simulated"]
    assert [t.passed for t in result.turns or []] == [True, True]
    simulation = result.simulation
    assert simulation is not None
    assert simulation.model == "anthropic:claude-haiku-4-5"
    assert len(simulation.fingerprint) == 64
    assert (simulation.scripted_turns, simulation.simulated_turns) == (1, 1)
    assert simulation.stop_marker == "###STOP###"
    # The fake Anthropic server's usage (10 in, 5 out) per simulator call: two calls.
    assert simulation.token_usage is not None and simulation.token_usage.total_tokens == 30
    assert simulation.at_end is not None and simulation.at_end.passed
    assert {m.metric_name for m in simulation.at_end.metric_results} == {"communicate_info"}
    # The simulator saw its instructions as the system prompt and the roles flipped; the
    # stop message was never sent to the agent.
    system, first = sent_to_simulator(fake_anthropic.conversation_requests[0].body)
    assert system == INSTRUCTIONS
    assert [role for role, _ in first] == ["user", "assistant", "user"]
    assert first[1:] == [
        ("assistant", "Hi, I need help with an order."),
        ("user", "Sure, what is your order number?"),
    ]
    assert len(fake_openai.chat_requests) == 3
    assert "###STOP###" not in json.dumps([r.body for r in fake_openai.chat_requests])
    assert "1 passed, 0 failed of 1 test cases" in done.out
    # The recording holds both sides; its replay is the same report, with no server asked.
    recorded = json.loads(cassette.read_text(encoding="utf-8"))
    assert recorded["version"] == 7
    [case] = recorded["cases"]
    assert case["simulated_user"]["final_message"] == "Thanks! ###STOP###"
    assert [turn["input"] for turn in case["turns"]] == [
        "Hi, I need help with an order.",
        "My order is W2378156. What is left to pay?",
    ]
    requests = (len(fake_openai.requests), len(fake_anthropic.requests))
    replay_path = tmp_path / "replay.json"
    replayed = await run_cli(
        [str(agent), "--replay", str(cassette), "--report-json", str(replay_path)],
        _env(tmp_path),
        tmp_path,
    )
    assert replayed.status == 0, replayed.out + replayed.err
    assert (len(fake_openai.requests), len(fake_anthropic.requests)) == requests
    again = read_report(replay_path)
    assert again.results[0].turns is not None
    assert [t.user_source for t in again.results[0].turns] == ["scripted", "recorded"]
    strip = _without_user_source
    assert strip(comparable(again)["results"]) == strip(comparable(report)["results"])
    await _replay_the_user_to_a_new_agent_marks_the_divergence(
        tmp_path, agent, cassette, fake_openai, fake_anthropic
    )


async def _replay_the_user_to_a_new_agent_marks_the_divergence(
    tmp_path: Path,
    agent: Path,
    cassette: Path,
    fake_openai: FakeOpenAIServer,
    fake_anthropic: FakeAnthropicServer,
) -> None:
    """The recording above, its user replayed to a new agent (a step of the test above: the
    recording is the one that test made and checked)."""
    simulator_calls = len(fake_anthropic.conversation_requests)
    # The new agent answers turn 0 alike, then calls subtract with other arguments.
    fake_openai.script(
        Reply(text="Sure, what is your order number please?"),
        Reply(tool_calls=[ToolCall("tools-subtract", {"a": 1300, "b": 60})]),
        Reply(text="Order W2378156 has $1240 left to pay."),
    )
    report_path = tmp_path / "replay-user.json"
    args = [str(agent), "--replay-user", str(cassette), "--report-json", str(report_path)]
    done = await run_cli(args, _env(tmp_path), tmp_path)
    assert done.status == 1, done.out + done.err  # the new agent's answer is wrong
    assert len(fake_anthropic.conversation_requests) == simulator_calls
    [result] = read_report(report_path).results
    simulation = result.simulation
    assert simulation is not None and simulation.diverged_at_turn == 1
    assert "different arguments to tools-subtract" in (simulation.divergence or "")
    assert [t.user_source for t in result.turns or []] == ["scripted", "recorded"]
    assert simulation.stop_marker == "###STOP###"
    refused = await run_cli([str(agent), "--replay-user", str(agent)], _env(tmp_path), tmp_path)
    assert refused.status in (2, 3) and "agent.yaml" in refused.err


def _without_user_source(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A replay's simulated turns are `recorded`, the live run's `simulated`, and a replay asks
    no simulator (no tokens spent): all else equal."""
    text = json.dumps(results).replace('"user_source": "recorded"', '"user_source": "simulated"')
    loaded: list[dict[str, Any]] = json.loads(text)
    for result in loaded:
        result["simulation"].pop("token_usage")
    return loaded


async def test_the_simulators_failures_are_its_own(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_anthropic: FakeAnthropicServer
) -> None:
    """Three ways a simulator fails, one case each in one run (one case at a time, so the
    fakes' scripts are taken in case order): its provider answers an error, it answers as the
    agent, it never stops within max_turns. Each is the simulator's failure, not the agent's;
    the run exits 4 (not measured), and the console says so."""
    fake_openai.script(
        Reply(text="Sure, what is your order number?"),  # provider_error
        Reply(text="Sure, what is your order number?"),  # answered_as_agent
        *AGENT_REPLIES,  # never_stopped (last: what it leaves unasked moves no other case)
    )
    fake_anthropic.script(
        ErrorReply(status=400, message="bad simulator request"),
        *anthropic_user('Assistant: {"name": "subtract", "arguments": {}}'),
        *anthropic_user("My order is W2378156.", "And the balance?"),
    )
    cases = (("provider_error", 3), ("as_agent", 3), ("never_stops", 1))
    agent = write_agent(tmp_path / "suite", fake_openai.base_url, fake_anthropic.base_url, cases)
    report_path = tmp_path / "report.json"
    # Three cases in one process: a generous bound on a loaded machine (not CHILD_TIMEOUT).
    args = [str(agent), "--report-json", str(report_path)]
    done = await finish(await start(args, _env(tmp_path), tmp_path), timeout=120)
    assert done.status == 4, done.out + done.err
    report = read_report(report_path)
    assert [r.test_name for r in report.results] == [name for name, _ in cases]
    provider_error, as_agent, never_stops = report.results

    assert provider_error.simulation is not None
    assert provider_error.simulation.failure == "provider_error"
    assert "bad simulator request" in (provider_error.simulation.failure_detail or "")
    assert provider_error.simulator_failed

    assert as_agent.simulation is not None
    assert as_agent.simulation.failure == "answered_as_agent"
    assert as_agent.simulator_failed

    assert never_stops.simulator_failed and not never_stops.passed and not never_stops.errored
    assert never_stops.simulation is not None
    assert never_stops.simulation.failure == "never_stopped"
    assert never_stops.simulation.at_end is None
    summary = report.summary
    assert (summary.passed, summary.failed, summary.errored, summary.simulator_failed) == (
        0,
        0,
        0,
        3,
    )
    assert "SIMULATOR FAILED" in done.out and "3 simulator failed" in done.out
