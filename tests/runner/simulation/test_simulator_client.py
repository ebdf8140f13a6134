"""The simulated user's model over the OpenAI wire
(runner/execution/simulation/simulator_client.py),
against the fake OpenAI server: its instructions as the system message, the conversation with
the roles flipped, its temperature, the key in the header; a provider error, an unreadable
answer and a missing key raised as the simulator's (SimulatorError), never the agent's."""

from __future__ import annotations

import pytest

from holodeck_lsp.runner.execution.simulation.simulator_client import (
    OPENING,
    SimulatorClient,
    SimulatorError,
)
from holodeck_lsp.schema.llm import LLMProvider
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.simulated_user import openai_user, sent_to_simulator

KEY = "sk-sim-client-3e9f1a"


def _model(endpoint: str) -> LLMProvider:
    return LLMProvider.model_validate(
        {"provider": "openai", "name": "gpt-4.1-mini", "endpoint": endpoint, "temperature": 0.0}
    )


async def test_the_request_and_the_reply(fake_openai: FakeOpenAIServer) -> None:
    fake_openai.script(*openai_user("I want to return order #W1."))
    client = SimulatorClient(_model(fake_openai.base_url), {"OPENAI_API_KEY": KEY})
    try:
        exchanges = [("Hi.", "Hello! How can I help?")]
        message, usage = await client.next_message("You are Ana.", exchanges)
    finally:
        await client.aclose()
    assert message == "I want to return order #W1." and usage.total_tokens == 15
    [request] = fake_openai.chat_requests
    system, messages = sent_to_simulator(request.body)
    assert system == "You are Ana."
    assert messages == [
        ("user", OPENING),
        ("assistant", "Hi."),
        ("user", "Hello! How can I help?"),
    ]
    assert request.body["temperature"] == 0.0 and request.body["model"] == "gpt-4.1-mini"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert "tools" not in request.body  # it never sees the agent's tools


async def test_failures_are_the_simulators(fake_openai: FakeOpenAIServer) -> None:
    with pytest.raises(SimulatorError, match="needs an API key: set OPENAI_API_KEY"):
        SimulatorClient(_model(fake_openai.base_url), {})
    client = SimulatorClient(_model(fake_openai.base_url), {"OPENAI_API_KEY": KEY})
    try:
        fake_openai.fail_next(400, message="bad request from the simulator")
        with pytest.raises(SimulatorError, match="HTTP 400"):
            await client.next_message("You are Ana.", [])
    finally:
        await client.aclose()
