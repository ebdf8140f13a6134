"""The Semantic Kernel backend end to end: real SK, real function tools, a fake OpenAI server.

Each test writes a real agent.yaml and tools.py, loads them with the real loader and talks to
`tests/fakes/openai_server.py` over HTTP on 127.0.0.1.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.runner.agent_code.function_tools import load_function_tools
from holodeck_lsp.runner.backends.base import (
    BackendInitError,
    BackendSessionError,
    BackendTimeoutError,
    TurnFile,
)
from holodeck_lsp.runner.backends.create import create_backend
from holodeck_lsp.runner.backends.semantic_kernel_backend import SemanticKernelBackend
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TokenUsage
from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCall, Usage

TOOLS = '''\
def subtract(a: int, b: int) -> int:
    """Subtract b from a."""
    return a - b


def divide(a: float, b: float) -> float:
    """Divide a by b."""
    return a / b
'''

AGENT = """\
name: calculator
model:
{model}
instructions: {instructions}
tools:
  - name: subtract
    type: function
    description: Subtract two integers
    file: tools.py
    function: subtract
    parameters:
      a: {{type: integer, description: the minuend}}
  - {{name: divide, type: function, description: Divide two numbers, file: tools.py,
      function: divide}}
test_cases:
  - {{name: t, input: "hi"}}
"""


def openai_model(endpoint: str, **extra: str) -> str:
    lines = ["provider: openai", "name: gpt-fake", f"endpoint: {endpoint}", *extra.values()]
    return textwrap.indent("\n".join(lines), "  ")


def load(
    tmp_path: Path,
    model: str,
    *,
    instructions: str = '{inline: "You are a calculator."}',
    extra: str = "",
) -> Agent:
    (tmp_path / "tools.py").write_text(TOOLS)
    text = AGENT.format(model=model, instructions=instructions) + extra
    result = load_agent_text(
        text, tmp_path / "agent.yaml", LoadOptions(home=tmp_path / "home", env={})
    )
    assert result.agent is not None, [d.message for d in result.diagnostics]
    return result.agent


def backend_for(
    agent: Agent, tmp_path: Path, env: dict[str, str] | None = None, **options: Any
) -> SemanticKernelBackend:
    tools = load_function_tools(agent, tmp_path)
    options.setdefault("max_retries", 0)
    return SemanticKernelBackend(
        agent, tools, {"OPENAI_API_KEY": "sk-test"} if env is None else env, **options
    )


@pytest.fixture
def agent(tmp_path: Path, fake_openai: FakeOpenAIServer) -> Agent:
    model = openai_model(
        f"{fake_openai.base_url}/v1", t="temperature: 0.1", m="max_tokens: 321", p="top_p: 0.9"
    )
    return load(tmp_path, model)


def roles(messages: list[dict[str, Any]]) -> list[str]:
    return [m["role"] for m in messages]


async def test_three_turns_keep_state_and_capture_each_turns_tool_calls(
    agent: Agent, tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    sub = ToolCall("tools-subtract", {"a": 206588, "b": 181001})
    div = ToolCall("tools-divide", {"a": 25587, "b": 181001})
    fake_openai.script(
        Reply(tool_calls=[sub], usage=Usage(100, 20)),
        Reply(text="The difference is 25587.", usage=Usage(130, 7)),
        Reply(tool_calls=[div], usage=Usage(150, 18)),
        Reply(text="That is about 14.1%.", usage=Usage(170, 9, cached_tokens=100)),
        Reply(text="You're welcome.", usage=Usage(190, 4)),
    )
    backend = backend_for(agent, tmp_path)
    session = await backend.create_session()
    try:
        first = await session.send("What is 206588 - 181001?")
        second = await session.send("And as a share of 181001?")
        third = await session.send("Thanks!")
    finally:
        await session.close()
        await backend.aclose()

    # Turn 1: the tool really ran and its result went back to the model.
    assert first.response == "The difference is 25587."
    [call] = first.tool_invocations
    assert call.name == "tools-subtract"
    assert call.args == {"a": 206588, "b": 181001}
    assert call.result == 25587
    assert call.error is None
    assert call.duration_ms is not None and call.duration_ms >= 0
    assert first.token_usage == TokenUsage(
        prompt_tokens=230, completion_tokens=27, total_tokens=257
    )

    requests = fake_openai.chat_requests
    assert len(requests) == 5 and fake_openai.pending == 0
    tool_message = requests[1].messages[-1]
    assert tool_message == {"role": "tool", "tool_call_id": sub.id, "content": "25587"}

    # Turn 2 carries turn 1 (system, user, tool call, tool result, answer) before its question.
    turn2 = requests[2].messages
    assert roles(turn2) == ["system", "user", "assistant", "tool", "assistant", "user"]
    assert turn2[0]["content"] == "You are a calculator."
    assert turn2[1]["content"] == "What is 206588 - 181001?"
    assert turn2[2]["tool_calls"][0]["function"]["name"] == "tools-subtract"
    assert turn2[4]["content"] == "The difference is 25587."
    assert turn2[5]["content"] == "And as a share of 181001?"
    [call] = second.tool_invocations  # only this turn's call
    assert (call.name, call.args) == ("tools-divide", {"a": 25587, "b": 181001})
    assert call.result == pytest.approx(25587 / 181001)
    assert second.token_usage == TokenUsage(
        prompt_tokens=320, completion_tokens=27, total_tokens=347, cache_read_tokens=100
    )

    assert third.response == "You're welcome."
    assert third.tool_invocations == ()
    assert third.token_usage == TokenUsage(prompt_tokens=190, completion_tokens=4, total_tokens=194)
    assert roles(requests[4].messages) == ["system"] + [
        "user",
        "assistant",
        "tool",
        "assistant",
    ] * 2 + ["user"]

    # What the model was offered: the YAML names and descriptions, typed parameters.
    body = requests[0].body
    assert (body["model"], body["temperature"], body["max_tokens"], body["top_p"]) == (
        "gpt-fake",
        0.1,
        321,
        0.9,
    )
    assert body.get("stream") in (None, False)
    subtract, divide = requests[0].tools
    assert subtract["function"]["name"] == "tools-subtract"
    assert subtract["function"]["description"] == "Subtract two integers"
    parameters = subtract["function"]["parameters"]
    assert parameters["properties"]["a"] == {"type": "integer", "description": "the minuend"}
    assert parameters["properties"]["b"]["type"] == "integer"
    assert parameters["required"] == ["a", "b"]
    assert divide["function"]["parameters"]["properties"]["a"]["type"] == "number"
    assert requests[0].headers["authorization"] == "Bearer sk-test"


async def test_parallel_calls_a_failing_tool_and_an_unknown_tool_are_all_reported(
    agent: Agent, tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    calls = [
        ToolCall("tools-subtract", {"a": 5, "b": 3}),
        ToolCall("tools-divide", {"a": 1, "b": 0}),
        ToolCall("tools-multiply", {"a": 1, "b": 2}),
        ToolCall("tools-subtract", "{not json"),
    ]
    fake_openai.script(Reply(tool_calls=calls), Reply(text="done"))
    backend = backend_for(agent, tmp_path)
    session = await backend.create_session()
    result = await session.send("go")
    await backend.aclose()

    ok, failed, unknown, malformed = result.tool_invocations
    assert (ok.name, ok.args, ok.result, ok.error) == ("tools-subtract", {"a": 5, "b": 3}, 2, None)
    assert failed.name == "tools-divide" and failed.result is None
    assert failed.error == "ZeroDivisionError: float division by zero"
    assert unknown.name == "tools-multiply" and unknown.call_problem == "unknown_tool"
    assert unknown.duration_ms is None and failed.call_problem is None
    assert malformed.args == {} and malformed.call_problem == "invalid_json"
    assert malformed.raw_arguments == "{not json"
    # The model was told about every call, including the failure; the record keeps what.
    tool_results = {
        m["tool_call_id"]: m["content"]
        for m in fake_openai.chat_requests[1].messages
        if m["role"] == "tool"
    }
    assert unknown.error == tool_results[calls[2].id]
    assert malformed.error == tool_results[calls[3].id]
    assert "not part of the provided tools" in unknown.error
    assert tool_results[calls[0].id] == "2"
    assert "division by zero" in tool_results[calls[1].id]
    assert set(tool_results) == {call.id for call in calls}


async def test_a_500_fails_the_send_recoverably_and_the_session_goes_on(
    agent: Agent, tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    backend = backend_for(agent, tmp_path)
    session = await backend.create_session()
    fake_openai.fail_next(500)
    with pytest.raises(BackendSessionError) as caught:
        await session.send("first")
    assert caught.value.recoverable is True
    assert "HTTP 500" in str(caught.value) and fake_openai.base_url in str(caught.value)

    fake_openai.script(Reply(text="second answer"))
    result = await session.send("second")
    assert result.response == "second answer"
    # The failed turn was dropped from the history.
    assert roles(fake_openai.chat_requests[-1].messages) == ["system", "user"]
    assert fake_openai.chat_requests[-1].messages[1]["content"] == "second"
    await backend.aclose()


async def test_client_retries_ride_out_one_500(
    agent: Agent, tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    backend = backend_for(agent, tmp_path, max_retries=1)
    fake_openai.fail_next(503)
    fake_openai.script(Reply(text="fine"))
    session = await backend.create_session()
    assert (await session.send("hi")).response == "fine"
    assert len(fake_openai.chat_requests) == 2
    await backend.aclose()


@pytest.mark.parametrize("status", [401, 404])
async def test_auth_and_not_found_errors_end_the_session(
    agent: Agent, tmp_path: Path, fake_openai: FakeOpenAIServer, status: int
) -> None:
    backend = backend_for(agent, tmp_path)
    session = await backend.create_session()
    fake_openai.fail_next(status)
    with pytest.raises(BackendSessionError) as caught:
        await session.send("hi")
    assert caught.value.recoverable is False
    assert f"HTTP {status}" in str(caught.value)
    await backend.aclose()


@pytest.mark.slow
async def test_llm_timeout_becomes_a_backend_timeout(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    agent = load(
        tmp_path,
        openai_model(f"{fake_openai.base_url}/v1"),
        extra="execution: {llm_timeout: 1}\n",
    )
    fake_openai.script(Reply(text="late", delay=3))
    backend = backend_for(agent, tmp_path)
    session = await backend.create_session()
    with pytest.raises(BackendTimeoutError):
        await session.send("hi")
    await backend.aclose()


def test_missing_api_keys_say_what_to_set(tmp_path: Path) -> None:
    agent = load(tmp_path, "  provider: openai\n  name: gpt-fake")
    with pytest.raises(BackendInitError, match=r"OPENAI_API_KEY.*model\.api_key"):
        backend_for(agent, tmp_path, env={})
    azure = load(
        tmp_path,
        "  provider: azure_openai\n  name: dep\n  endpoint: https://x.openai.azure.com",
    )
    with pytest.raises(BackendInitError, match=r"AZURE_OPENAI_API_KEY.*model\.api_key"):
        backend_for(azure, tmp_path, env={"OPENAI_API_KEY": "wrong provider"})


async def test_api_key_from_the_yaml_wins_over_the_environment(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    agent = load(tmp_path, openai_model(f"{fake_openai.base_url}/v1", k="api_key: sk-yaml"))
    backend = backend_for(agent, tmp_path, env={"OPENAI_API_KEY": "sk-env"})
    session = await backend.create_session()
    await session.send("hi")
    assert fake_openai.chat_requests[0].headers["authorization"] == "Bearer sk-yaml"
    await backend.aclose()


async def test_azure_calls_the_deployment_with_its_api_version(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    model = (
        "  provider: azure_openai\n  name: my-deployment\n"
        f'  endpoint: {fake_openai.base_url}\n  api_version: "2024-10-21"'
    )
    agent = load(tmp_path, model)
    fake_openai.script(Reply(text="from azure"))
    backend = backend_for(agent, tmp_path, env={"AZURE_OPENAI_API_KEY": "az-key"})
    session = await backend.create_session()
    assert (await session.send("hi")).response == "from azure"
    [request] = fake_openai.chat_requests
    assert request.path == (
        "/openai/deployments/my-deployment/chat/completions?api-version=2024-10-21"
    )
    assert request.headers["api-key"] == "az-key"
    await backend.aclose()


async def test_ollama_uses_its_openai_compatible_endpoint(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    agent = load(
        tmp_path, f"  provider: ollama\n  name: llama3.2\n  endpoint: {fake_openai.base_url}"
    )
    fake_openai.script(Reply(text="from ollama"))
    backend = backend_for(agent, tmp_path, env={})  # no key needed
    session = await backend.create_session()
    assert (await session.send("hi")).response == "from ollama"
    [request] = fake_openai.chat_requests
    assert request.path == "/v1/chat/completions"
    assert request.body["model"] == "llama3.2"
    await backend.aclose()

    default = backend_for(load(tmp_path, "  provider: ollama\n  name: llama3.2"), tmp_path, env={})
    assert default.base_url.rstrip("/") == "http://localhost:11434/v1"
    await default.aclose()


@pytest.mark.parametrize(
    ("ollama_host", "base_url"),
    [
        ("127.0.0.1:8765", "http://127.0.0.1:8765/v1"),
        ("myhost", "http://myhost:11434/v1"),
        ("https://ollama.example.com:443/", "https://ollama.example.com/v1"),
        ("", "http://localhost:11434/v1"),
    ],
)
async def test_ollama_without_endpoint_follows_ollama_host(
    tmp_path: Path, ollama_host: str, base_url: str
) -> None:
    agent = load(tmp_path, "  provider: ollama\n  name: llama3.2")
    backend = backend_for(agent, tmp_path, env={"OLLAMA_HOST": ollama_host})
    assert backend.base_url.rstrip("/") == base_url
    await backend.aclose()


async def test_ollama_endpoint_in_the_file_wins_over_ollama_host(tmp_path: Path) -> None:
    agent = load(tmp_path, "  provider: ollama\n  name: m\n  endpoint: http://gpu-box:11434")
    backend = backend_for(agent, tmp_path, env={"OLLAMA_HOST": "127.0.0.1:1"})
    assert backend.base_url.rstrip("/") == "http://gpu-box:11434/v1"
    await backend.aclose()


async def test_instructions_file_and_turn_files(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    (tmp_path / "prompts").mkdir()
    (tmp_path / "prompts" / "system.md").write_text("Answer from the table.")
    agent = load(
        tmp_path,
        openai_model(f"{fake_openai.base_url}/v1"),
        instructions="{file: prompts/system.md}",
    )
    backend = backend_for(agent, tmp_path, agent_dir=tmp_path)
    session = await backend.create_session()
    files = [
        TurnFile(tmp_path / "table.csv", "text", "text/csv", text="year,revenue\n2024,206588"),
        TurnFile(tmp_path / "chart.png", "image", "image/png", data=b"\x89PNG\r\n\x1a\nfake"),
    ]
    await session.send("What was 2024 revenue?", files)
    system, user = fake_openai.chat_requests[0].messages
    assert system == {"role": "system", "content": "Answer from the table."}
    parts = user["content"]
    assert parts[0] == {"type": "text", "text": "What was 2024 revenue?"}
    assert parts[1]["type"] == "text" and "table.csv" in parts[1]["text"]
    assert "2024,206588" in parts[1]["text"]
    image = next(p for p in parts if p["type"] == "image_url")
    assert image["image_url"]["url"].startswith("data:image/png;base64,")
    await backend.aclose()

    with pytest.raises(BackendInitError, match=r"prompts/system\.md"):
        SemanticKernelBackend(agent, [], {"OPENAI_API_KEY": "k"}, agent_dir=tmp_path / "elsewhere")


async def test_create_backend_selects_it_for_openai(
    agent: Agent, tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.script(
        Reply(tool_calls=[ToolCall("tools-subtract", {"a": 10, "b": 4})]), Reply(text="6")
    )
    backend = create_backend(agent, tmp_path, env={"OPENAI_API_KEY": "sk-x"})
    assert isinstance(backend, SemanticKernelBackend)
    session = await backend.create_session()
    result = await session.send("10 - 4?")
    assert result.response == "6" and result.tool_invocations[0].result == 6
    await session.close()
    await backend.aclose()


async def test_sessions_do_not_share_history(
    agent: Agent, tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    backend = backend_for(agent, tmp_path)
    one, two = await backend.create_session(), await backend.create_session()
    await one.send("for one")
    await two.send("for two")
    assert roles(fake_openai.chat_requests[1].messages) == ["system", "user"]
    await backend.aclose()


def test_importing_the_module_does_not_import_semantic_kernel() -> None:
    code = (
        "import sys\n"
        "import holodeck_lsp.runner.backends.semantic_kernel_backend\n"
        "heavy = sorted(m for m in ('semantic_kernel', 'openai') if m in sys.modules)\n"
        "assert not heavy, heavy\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
