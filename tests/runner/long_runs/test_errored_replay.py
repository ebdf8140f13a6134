"""An errored turn stays errored on replay: the cassette keeps the `errored` flag (format
version 4) and the replay reports the turn as the recorded run did — not measured, never a
failed answer. Recorded live from the Semantic Kernel backend against the loopback OpenAI
fake answering 503 (retry budget 0), then replayed with no network."""

from __future__ import annotations

import json
from pathlib import Path

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.runner.agent_code.function_tools import load_function_tools
from holodeck_lsp.runner.backends.semantic_kernel_backend import SemanticKernelBackend
from holodeck_lsp.runner.cassette import RecordingBackend, ReplayBackend, load_cassette
from holodeck_lsp.runner.execution.executor import RunOptions, run_suite
from holodeck_lsp.runner.limits import registry
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestReport
from tests.fakes.faults import FaultPlan
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SUITE = """\
name: weather
model: {{provider: openai, name: gpt-fake, endpoint: "{endpoint}"}}
instructions: {{inline: "Answer."}}
evaluations:
  metrics:
    - {{type: standard, metric: equality}}
test_cases:
  - name: weathered
    turns:
      - {{input: "one", ground_truth: "1"}}
      - {{input: "two", ground_truth: "2"}}
  - {{name: wrong, input: "three", ground_truth: "3"}}
"""


def _agent(tmp_path: Path, server: FakeOpenAIServer) -> Agent:
    text = SUITE.format(endpoint=f"{server.base_url}/v1")
    loaded = load_agent_text(text, tmp_path / "agent.yaml", LoadOptions(home=tmp_path, env={}))
    assert loaded.agent is not None, [d.message for d in loaded.diagnostics]
    return loaded.agent


def _answer(body: dict[str, object]) -> Reply:
    messages = body["messages"]
    assert isinstance(messages, list)
    return Reply(text={"one": "1", "two": "2"}.get(str(messages[-1]["content"]), "?"))


def _verdicts(report: TestReport) -> list[tuple[str, bool, bool]]:
    """(case, passed, errored) per turn."""
    return [
        (str(result.test_name), turn.passed, turn.errored)
        for result in report.results
        for turn in result.turn_results()
    ]


async def test_an_errored_turn_replays_as_errored_not_failed(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    registry.configure(registry.LimitSettings())
    fake_openai.responder = _answer
    fake_openai.faults = FaultPlan(scripted=["slow", "503"], slow_seconds=0.01)
    agent = _agent(tmp_path, fake_openai)
    live = SemanticKernelBackend(
        agent, load_function_tools(agent, tmp_path), {"OPENAI_API_KEY": "sk-x"}, max_retries=0
    )
    recording = RecordingBackend(live, agent.name, "openai:gpt-fake")
    try:
        recorded = await run_suite(agent, tmp_path, recording, options=RunOptions(parallel=1))
    finally:
        await recording.aclose()
    expected = [("weathered", True, False), ("weathered", False, True), ("wrong", False, False)]
    assert _verdicts(recorded) == expected

    path = tmp_path / "weather.cassette.json"
    recording.cassette().write(path)
    data = json.loads(path.read_text(encoding="utf-8"))
    assert data["version"] == 6
    turns = data["cases"][0]["turns"]
    assert [turn["errored"] for turn in turns] == [False, True]
    assert "503" in turns[1]["error"]
    assert data["cases"][1]["turns"][0]["errored"] is False  # a wrong answer is no error

    requests = len(fake_openai.chat_requests)
    replay = ReplayBackend(load_cassette(path), agent)
    replayed = await run_suite(agent, tmp_path, replay, options=RunOptions(parallel=1))
    assert len(fake_openai.chat_requests) == requests  # no network on replay
    assert _verdicts(replayed) == expected
    assert (replayed.summary.passed, replayed.summary.failed, replayed.summary.errored) == (0, 1, 1)
    assert replayed.summary.errored_turns == 1


def test_an_older_cassette_reads_its_failed_turns_as_not_errored(tmp_path: Path) -> None:
    old = {
        "format": "holodeck-cassette",
        "version": 3,
        "agent": "a",
        "cases": [
            {
                "name": "c",
                "index": 0,
                "turns": [{"input": "q", "response": None, "error": "HTTP 503"}],
            }
        ],
    }
    path = tmp_path / "v3.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    cassette = load_cassette(path)
    assert cassette.cases[0].turns[0].errored is False
    assert json.loads(cassette.render())["version"] == 6
