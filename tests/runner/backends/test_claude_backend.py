"""The Claude backend end to end: the real claude-agent-sdk and its bundled Claude Code CLI,
talking to a fake Anthropic Messages API on 127.0.0.1, with real function tools running."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.runner.agent_code.function_tools import load_function_tools
from holodeck_lsp.runner.backends.base import (
    BackendInitError,
    BackendProviderError,
    BackendSessionError,
    TurnFile,
)
from holodeck_lsp.runner.backends.claude_backend import ClaudeBackend
from holodeck_lsp.runner.backends.create import create_backend
from holodeck_lsp.runner.limits import registry
from holodeck_lsp.schema.agent import Agent
from tests.fakes.anthropic_server import (
    ErrorReply,
    FakeAnthropicServer,
    RecordedRequest,
    Reply,
    ToolUse,
    Usage,
)

# A 1x1 PNG.
_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360f8cf0000000301010018dd8db40000000049454e44ae426082"
)

TOOLS_PY = '''
CALLS = []

def subtract(a: float, b: float) -> float:
    """Subtract b from a."""
    CALLS.append(("subtract", a, b))
    return a - b

def divide(a: float, b: float) -> float:
    """Divide a by b."""
    CALLS.append(("divide", a, b))
    return a / b
'''


#: Skips the test, with the reason, where the bundled Claude Code CLI cannot start here: a
#: fixture (tests/conftest.py, `bundled_claude_cli`) rather than a `skipif` computed at import,
#: so collecting this module does not import the SDK in every xdist worker.
needs_cli = pytest.mark.usefixtures("bundled_claude_cli")


def _agent(**claude: Any) -> Agent:
    data: dict[str, Any] = {
        "name": "calculator",
        "model": {"provider": "anthropic", "name": "claude-test-1"},
        "instructions": {"inline": "You are a careful calculator. Use the tools."},
        "tools": [
            {
                "type": "function",
                "name": name,
                "description": f"{name.capitalize()} two numbers",
                "file": "tools.py",
                "function": name,
            }
            for name in ("subtract", "divide")
        ],
    }
    if claude:
        data["claude"] = claude
    return Agent.model_validate(data)


@pytest.fixture
async def server() -> AsyncIterator[FakeAnthropicServer]:
    async with FakeAnthropicServer() as fake:
        yield fake


@pytest.fixture
def agent_dir(tmp_path: Path) -> Path:
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    return tmp_path


def _env(server: FakeAnthropicServer, tmp_path: Path) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    return {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "ANTHROPIC_API_KEY": "sk-ant-fake-key",
        "ANTHROPIC_BASE_URL": server.base_url,
        # A user's own setting: the backend's 0 must win (the relay retries, the CLI must
        # not), or every scripted error would be sent 4 times.
        "CLAUDE_CODE_MAX_RETRIES": "3",
        "CLAUDE_CODE_HOLODECK_TEST_SETTING": "kept",
        "SOME_UNRELATED_SECRET": "do-not-leak",
    }


def _backend(agent: Agent, agent_dir: Path, env: dict[str, str]) -> ClaudeBackend:
    return ClaudeBackend(agent, load_function_tools(agent, agent_dir), env, agent_dir=agent_dir)


def _tool_calls(agent: Agent, agent_dir: Path) -> list[tuple[str, float, float]]:
    """What tools.py itself recorded (the module is imported once per run)."""
    calls: list[tuple[str, float, float]] = load_function_tools(agent, agent_dir)[
        0
    ].function.__globals__["CALLS"]
    return calls


def _messages_text(request: RecordedRequest) -> str:
    return json.dumps(request.body["messages"])


@needs_cli
async def test_three_turn_conversation_with_real_tools(
    server: FakeAnthropicServer, agent_dir: Path, tmp_path: Path
) -> None:
    server.script(
        # turn 1: one tool call, then the answer
        Reply(
            text="Let me subtract.",
            tool_uses=[ToolUse("mcp__tools__subtract", {"a": 10, "b": 4})],
            usage=Usage(input_tokens=100, output_tokens=20, cache_read_input_tokens=7),
        ),
        Reply(text="10 - 4 = 6", usage=Usage(input_tokens=130, output_tokens=8)),
        # turn 2: two tools in one message, then the answer
        Reply(
            tool_uses=[
                ToolUse("mcp__tools__divide", {"a": 6, "b": 3}),
                ToolUse("mcp__tools__subtract", {"a": 6, "b": 1}),
            ],
            usage=Usage(input_tokens=150, output_tokens=30, cache_creation_input_tokens=11),
        ),
        Reply(text="6 / 3 = 2 and 6 - 1 = 5", usage=Usage(input_tokens=200, output_tokens=12)),
        # turn 3: no tools
        Reply(text="You asked about 10 and 4.", usage=Usage(input_tokens=220, output_tokens=9)),
    )
    agent = _agent()
    backend = _backend(agent, agent_dir, _env(server, tmp_path))
    session = await backend.create_session()
    try:
        first = await session.send("What is 10 minus 4?")
        second = await session.send("Now divide 6 by 3 and subtract 1 from 6.")
        third = await session.send("Which numbers did I ask about first?")
    finally:
        await session.close()
        await backend.aclose()

    # Turn 1: the response, the tool call with its real result, the turn's tokens.
    assert first.response == "10 - 4 = 6"
    assert [(c.name, c.args, c.result, c.error) for c in first.tool_invocations] == [
        ("mcp__tools__subtract", {"a": 10, "b": 4}, 6, None)
    ]
    assert first.tool_invocations[0].duration_ms is not None
    assert first.token_usage is not None
    assert first.token_usage.prompt_tokens == 230
    assert first.token_usage.completion_tokens == 28
    assert first.token_usage.cache_read_tokens == 7
    assert first.token_usage.total_tokens == 230 + 28 + 7

    # Turn 2: both calls, in order, with results computed by tools.py.
    assert second.response == "6 / 3 = 2 and 6 - 1 = 5"
    assert [(c.name, c.args, c.result) for c in second.tool_invocations] == [
        ("mcp__tools__divide", {"a": 6, "b": 3}, 2.0),
        ("mcp__tools__subtract", {"a": 6, "b": 1}, 5),
    ]
    assert second.token_usage is not None
    assert second.token_usage.cache_creation_tokens == 11
    assert second.token_usage.prompt_tokens == 350

    assert third.response == "You asked about 10 and 4."
    assert third.tool_invocations == ()
    assert third.token_usage is not None and third.token_usage.completion_tokens == 9

    # The tool really ran in this process (tools.py recorded its calls).
    assert _tool_calls(agent, agent_dir) == [
        ("subtract", 10, 4),
        ("divide", 6, 3),
        ("subtract", 6, 1),
    ]

    requests = server.conversation_requests
    assert len(requests) == 5
    first_request = requests[0].body
    assert first_request["model"] == "claude-test-1"
    assert "careful calculator" in json.dumps(first_request["system"])
    tool_names = {t["name"] for t in first_request["tools"]}
    assert {"mcp__tools__subtract", "mcp__tools__divide"} <= tool_names
    assert not tool_names & {"Bash", "Read", "Write", "Edit"}  # built-ins are off
    subtract_schema = next(
        t for t in first_request["tools"] if t["name"] == "mcp__tools__subtract"
    )["input_schema"]
    assert subtract_schema["properties"]["a"]["type"] == "number"
    assert sorted(subtract_schema["required"]) == ["a", "b"]
    # The tool result went back to the model.
    followup = requests[1].body["messages"]
    results = [
        block
        for message in followup
        if isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "tool_result"
    ]
    assert results and "6" in json.dumps(results[0]["content"])
    # Turn 2's request carries turn 1's exchange; turn 3's carries both.
    turn2 = _messages_text(requests[2])
    assert "What is 10 minus 4?" in turn2 and "10 - 4 = 6" in turn2
    turn3 = _messages_text(requests[4])
    assert "What is 10 minus 4?" in turn3 and "6 / 3 = 2 and 6 - 1 = 5" in turn3
    # The key reached the fake server; an unrelated variable did not reach the CLI.
    assert requests[0].headers.get("x-api-key") == "sk-ant-fake-key"
    assert "do-not-leak" not in json.dumps([r.body for r in server.requests])


@needs_cli
async def test_failing_tool_is_captured_with_its_error(
    server: FakeAnthropicServer, agent_dir: Path, tmp_path: Path
) -> None:
    server.script(
        Reply(tool_uses=[ToolUse("mcp__tools__divide", {"a": 1, "b": 0})]),
        Reply(text="Dividing by zero is undefined."),
    )
    backend = _backend(_agent(), agent_dir, _env(server, tmp_path))
    session = await backend.create_session()
    try:
        result = await session.send("What is 1 / 0?")
    finally:
        await backend.aclose()
    assert result.response == "Dividing by zero is undefined."
    (call,) = result.tool_invocations
    assert call.name == "mcp__tools__divide" and call.result is None
    assert call.error is not None and "ZeroDivisionError" in call.error
    sent_back = json.dumps(server.conversation_requests[1].body["messages"])
    assert "ZeroDivisionError" in sent_back


@pytest.fixture
def retry_budget() -> Iterator[Callable[[int], None]]:
    """Set the run's retry budget (before the backend is made); the settings come back after."""
    before = registry.settings()
    yield lambda retries: registry.configure(registry.LimitSettings(retry_budget=retries))
    registry.configure(before)


@needs_cli
async def test_server_error_errors_the_turn_and_the_session_goes_on(
    server: FakeAnthropicServer,
    agent_dir: Path,
    tmp_path: Path,
    retry_budget: Callable[[int], None],
) -> None:
    retry_budget(1)
    server.script(
        ErrorReply(status=500, message="upstream exploded", times=2), Reply(text="back again")
    )
    backend = _backend(_agent(), agent_dir, _env(server, tmp_path))
    session = await backend.create_session()
    try:
        # A 500 is the provider's, not the agent's: errored once the budget (1) is spent.
        with pytest.raises(BackendProviderError) as failure:
            await session.send("Hello?")
        assert failure.value.recoverable
        assert "500" in str(failure.value) and "upstream exploded" in str(failure.value)
        # The relay's one retry, and none of the CLI's own (its 3 would make it 8).
        assert len(server.conversation_requests) == 2
        again = await session.send("Hello again?")
    finally:
        await backend.aclose()
    assert again.response == "back again"


def _process_env(pid: int) -> dict[str, str]:
    raw = Path(f"/proc/{pid}/environ").read_bytes()
    pairs = (item.split(b"=", 1) for item in raw.split(b"\0") if b"=" in item)
    return {key.decode(): value.decode() for key, value in pairs}


@needs_cli
async def test_cli_gets_a_controlled_environment(
    server: FakeAnthropicServer, agent_dir: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOLODECK_TEST_INHERITED_SECRET", "leak-me-not")
    backend = _backend(_agent(), agent_dir, _env(server, tmp_path))
    session = await backend.create_session()
    try:
        process = session._client._transport._process  # type: ignore[attr-defined]
        env = _process_env(process.pid)
    finally:
        await backend.aclose()
    # Neither the caller's env dict nor this process's own environment leaks through.
    assert env.get("SOME_UNRELATED_SECRET", "") == ""
    assert env.get("HOLODECK_TEST_INHERITED_SECRET", "") == ""
    assert env["ANTHROPIC_API_KEY"] == "sk-ant-fake-key"
    # The CLI calls the limiting relay (a path of its own), which forwards to the server.
    assert env["ANTHROPIC_BASE_URL"].startswith("http://127.0.0.1:")
    assert "/s/" in env["ANTHROPIC_BASE_URL"]
    assert env["CLAUDE_CODE_MAX_RETRIES"] == "0"  # the relay retries, the CLI does not
    assert env["CLAUDE_CODE_HOLODECK_TEST_SETTING"] == "kept"  # CLAUDE_CODE_* pass through
    assert env.get("CLAUDE_CODE_MAX_OUTPUT_TOKENS", "") == ""  # max_tokens not written
    assert env["DISABLE_TELEMETRY"] == "1"
    # A scratch home, not the caller's, removed when the backend closes.
    assert env["HOME"] != str(tmp_path / "home")
    assert not Path(env["HOME"]).exists()


@needs_cli
@pytest.mark.slow
async def test_a_timed_out_turn_does_not_leak_into_the_next(
    server: FakeAnthropicServer, agent_dir: Path, tmp_path: Path
) -> None:
    server.script(Reply(text="too late", delay=5.0), Reply(text="on time"))
    backend = _backend(_agent(), agent_dir, _env(server, tmp_path))
    session = await backend.create_session()
    try:
        sending = asyncio.ensure_future(session.send("Slow question"))
        # Timed out only once its request reached the API (took the slow answer): a CLI slow
        # to start on a busy machine would otherwise be interrupted before it sent anything,
        # and the quick question would take the slow answer.
        async with asyncio.timeout(60):
            while not server.conversation_requests:
                await asyncio.sleep(0.05)
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(sending, timeout=0.5)
        result = await session.send("Quick question")
    finally:
        await backend.aclose()
    assert result.response == "on time"
    assert "Quick question" in _messages_text(server.conversation_requests[-1])


@needs_cli
async def test_dead_cli_is_not_recoverable(
    server: FakeAnthropicServer, agent_dir: Path, tmp_path: Path
) -> None:
    server.script(Reply(text="never read"))
    backend = _backend(_agent(), agent_dir, _env(server, tmp_path))
    session = await backend.create_session()
    try:
        process = session._client._transport._process  # type: ignore[attr-defined]
        process.kill()
        await process.wait()
        with pytest.raises(BackendSessionError) as failure:
            await session.send("Anyone there?")
        assert not failure.value.recoverable
        with pytest.raises(BackendSessionError):
            await session.send("Still there?")
    finally:
        await backend.aclose()


@needs_cli
async def test_claude_block_chooses_the_tools_and_files_travel_with_the_turn(
    server: FakeAnthropicServer, agent_dir: Path, tmp_path: Path
) -> None:
    server.script(Reply(text="Seen both files."))
    agent = _agent(
        file_system={"read": True, "write": True},
        allowed_tools=["subtract", "Read"],
        max_turns=3,
    )
    backend = _backend(agent, agent_dir, _env(server, tmp_path))
    session = await backend.create_session()
    files = [
        TurnFile(
            path=Path("notes.txt"),
            kind="text",
            media_type="text/plain",
            text="the secret number is 42",
        ),
        TurnFile(path=Path("dot.png"), kind="image", media_type="image/png", data=_PNG),
    ]
    try:
        result = await session.send("What do the files say?", files)
    finally:
        await backend.aclose()
    assert result.response == "Seen both files."
    (request,) = server.conversation_requests
    offered = {t["name"] for t in request.body["tools"]}
    assert "mcp__tools__subtract" in offered and "Read" in offered
    assert not offered & {"mcp__tools__divide", "Write", "Bash", "Edit"}
    user_blocks = [
        block
        for message in request.body["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
    ]
    text = json.dumps(user_blocks)
    assert "the secret number is 42" in text and "What do the files say?" in text
    images = [b for b in user_blocks if b.get("type") == "image"]
    assert images and images[0]["source"]["media_type"] == "image/png"


def test_missing_key_is_an_init_error(agent_dir: Path) -> None:
    with pytest.raises(BackendInitError, match="ANTHROPIC_API_KEY"):
        create_backend(_agent(), agent_dir, env={"PATH": "/usr/bin"})


def test_features_it_cannot_run_are_init_errors(agent_dir: Path) -> None:
    agent = _agent(agents={"helper": {"description": "Helps", "prompt": "Help."}})
    with pytest.raises(BackendInitError, match="subagents"):
        create_backend(agent, agent_dir, env={"ANTHROPIC_API_KEY": "k"})


def test_key_from_model_and_endpoint_reach_the_cli_env(agent_dir: Path) -> None:
    agent = Agent.model_validate(
        {
            **_agent().model_dump(exclude_none=True, exclude={"model"}),
            "model": {
                "provider": "anthropic",
                "name": "claude-test-1",
                "api_key": "sk-from-yaml",
                "endpoint": "http://127.0.0.1:9",
                "max_tokens": 2048,
            },
        }
    )
    backend = _backend(agent, agent_dir, {"PATH": "/usr/bin", "AWS_SECRET_ACCESS_KEY": "x"})
    env = backend._cli_env
    assert env["ANTHROPIC_API_KEY"] == "sk-from-yaml"
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"
    assert env["DISABLE_TELEMETRY"] == "1"
    assert env["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] == "2048"
    assert "AWS_SECRET_ACCESS_KEY" not in env or env["AWS_SECRET_ACCESS_KEY"] == ""
    assert Path(env["HOME"]).is_dir()  # a scratch home, removed by aclose


def test_importing_the_module_does_not_import_the_sdk() -> None:
    code = (
        "import sys, holodeck_lsp.runner.backends.claude_backend\n"
        "assert 'claude_agent_sdk' not in sys.modules, 'SDK imported'\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)
