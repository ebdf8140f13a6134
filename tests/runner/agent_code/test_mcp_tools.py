"""MCP stdio tools end to end, on both backends: a real agent.yaml, the real SDKs, a real MCP
server process (`tests/fakes/mcp_calc_server.py`, which logs what it does to a file) and the
fake model APIs, which call the server's tools.

The schema allows only npx, node, uvx or docker as `command:`, so the tests put a `uvx` on
PATH that is a two-line shell script running this interpreter (`sys.executable`): the backend
finds the launcher on PATH exactly as it would find the real one.
"""

from __future__ import annotations

import asyncio
import json
import os
import stat
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.runner.agent_code.function_tools import load_function_tools
from holodeck_lsp.runner.backends.base import BackendInitError
from holodeck_lsp.runner.backends.claude_backend import ClaudeBackend
from holodeck_lsp.runner.backends.semantic_kernel_backend import SemanticKernelBackend
from holodeck_lsp.schema.agent import Agent
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.anthropic_server import Reply as ClaudeReply
from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCall
from tests.runner.backends.test_claude_backend import needs_cli

pytestmark = [
    pytest.mark.skipif(sys.platform == "win32", reason="the uvx stand-in is a POSIX shell script"),
    pytest.mark.slow,  # real MCP server processes and SDK sessions: about a second each
]

SERVER = Path(__file__).resolve().parents[2] / "fakes" / "mcp_calc_server.py"

#: Variables the MCP server may see: the YAML's env, the basics (the mcp client library adds
#: its own short list from this process: HOME, LOGNAME, PATH, SHELL, TERM, USER), and what the
#: interpreter or shell sets itself.
ALLOWED_SERVER_ENV = {
    "MCP_CALC_LOG",
    "CALC_PREFIX",
    *("PATH", "HOME", "LOGNAME", "SHELL", "TERM", "USER", "LANG", "LC_ALL", "LC_CTYPE", "PWD"),
}

TOOLS_PY = '''
def subtract(a: float, b: float) -> float:
    """Subtract b from a."""
    return a - b
'''

AGENT = """\
name: calculator
model:
{model}
instructions: {{inline: "You are a calculator. Use the tools."}}
tools:
  - name: subtract
    type: function
    description: Subtract two numbers
    file: tools.py
    function: subtract
  - name: calc
    type: mcp
    description: Multiplication, division and fact lookup
    command: uvx
    args: [{server}]
    env:
      MCP_CALC_LOG: {log}
      CALC_PREFIX: "fact: "
{extra}
{claude}
test_cases:
  - {{name: t, input: "hi"}}
"""


@pytest.fixture
def shim_path(tmp_path: Path) -> str:
    """A PATH whose `uvx` runs this interpreter."""
    folder = tmp_path / "bin"
    folder.mkdir()
    uvx = folder / "uvx"
    uvx.write_text(f'#!/bin/sh\nexec "{sys.executable}" "$@"\n')
    uvx.chmod(uvx.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return f"{folder}:/usr/bin:/bin"


@pytest.fixture
def secret_in_process_env(monkeypatch: pytest.MonkeyPatch) -> str:
    """A secret in this process's environment, which no MCP server may receive."""
    monkeypatch.setenv("SOME_SECRET", "do-not-leak-1234")
    return "SOME_SECRET"


def load(
    tmp_path: Path,
    model: str,
    *,
    server: Path = SERVER,
    extra: str = "",
    claude: str = "",
) -> Agent:
    (tmp_path / "tools.py").write_text(TOOLS_PY)
    text = AGENT.format(
        model=textwrap.indent(model, "  "),
        server=json.dumps(str(server)),
        log=json.dumps(str(tmp_path / "mcp.log")),
        extra=textwrap.indent(extra, "    "),
        claude=claude,
    )
    result = load_agent_text(
        text, tmp_path / "agent.yaml", LoadOptions(home=tmp_path / "home", env={})
    )
    assert result.agent is not None, [d.message for d in result.diagnostics]
    return result.agent


def server_log(tmp_path: Path) -> list[dict[str, Any]]:
    path = tmp_path / "mcp.log"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text().splitlines()]


def pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


# --------------------------------------------------------------------------- Semantic Kernel


def sk_backend(
    tmp_path: Path, fake_openai: FakeOpenAIServer, shim_path: str, **load_options: Any
) -> SemanticKernelBackend:
    model = f"provider: openai\nname: gpt-fake\nendpoint: {fake_openai.base_url}/v1"
    agent = load(tmp_path, model, **load_options)
    env = {
        "OPENAI_API_KEY": "sk-test-key-5678",
        "PATH": shim_path,
        "HOME": str(tmp_path),
        "SOME_SECRET": "do-not-leak-1234",
    }
    return SemanticKernelBackend(
        agent, load_function_tools(agent, tmp_path), env, agent_dir=tmp_path, max_retries=0
    )


async def test_sk_model_calls_mcp_tools_run_by_the_real_server(
    tmp_path: Path, fake_openai: FakeOpenAIServer, shim_path: str, secret_in_process_env: str
) -> None:
    multiply = ToolCall("calc-multiply", {"a": 6, "b": 7})
    lookup = ToolCall("calc-lookup", {"query": "capital of France"})
    fake_openai.script(
        Reply(tool_calls=[multiply, lookup]),
        Reply(text="42, and the capital is Paris."),
        Reply(tool_calls=[ToolCall("tools-subtract", {"a": 42, "b": 2})]),
        Reply(text="40"),
    )
    backend = sk_backend(tmp_path, fake_openai, shim_path)
    session = await backend.create_session()
    try:
        first = await session.send("What is 6 times 7, and the capital of France?")
        second = await session.send("Minus 2?")
    finally:
        await session.close()
        await backend.aclose()

    # The model was offered the server's tools next to the function tools.
    first_request, answer_request, *_ = fake_openai.chat_requests
    assert {"calc-multiply", "calc-divide", "calc-lookup", "tools-subtract"} <= set(
        first_request.tool_names
    )
    # The real server ran both calls (its own log), with the YAML's env.
    log = server_log(tmp_path)
    [start] = [e for e in log if e["event"] == "start"]
    calls = [e for e in log if e["event"] == "call"]
    assert [(c["tool"], c["args"], c["result"]) for c in calls] == [
        ("multiply", [6.0, 7.0], 42.0),
        ("lookup", ["capital of France"], "fact: Paris"),
    ]
    assert {c["pid"] for c in calls} == {start["pid"]}
    assert start["cwd"] == str(tmp_path)
    # Its results went back to the model.
    results = {
        m["tool_call_id"]: m["content"] for m in answer_request.messages if m["role"] == "tool"
    }
    assert results == {multiply.id: "42.0", lookup.id: "fact: Paris"}
    # And the turn captured both calls like function calls.
    assert [(c.name, c.args, c.result, c.error) for c in first.tool_invocations] == [
        ("calc-multiply", {"a": 6, "b": 7}, "42.0", None),
        ("calc-lookup", {"query": "capital of France"}, "fact: Paris", None),
    ]
    assert all(c.duration_ms is not None for c in first.tool_invocations)
    assert first.response == "42, and the capital is Paris."
    # Function tools still work beside it.
    assert [(c.name, c.result) for c in second.tool_invocations] == [("tools-subtract", 40)]
    # No secret reached the server: only basics and the YAML's env.
    assert secret_in_process_env not in start["env_keys"]
    assert "OPENAI_API_KEY" not in start["env_keys"]
    assert set(start["env_keys"]) <= ALLOWED_SERVER_ENV
    # Closing the session stopped the server.
    assert not pid_alive(start["pid"])


async def test_sk_each_session_gets_its_own_server(
    tmp_path: Path, fake_openai: FakeOpenAIServer, shim_path: str
) -> None:
    fake_openai.script(
        Reply(tool_calls=[ToolCall("calc-multiply", {"a": 2, "b": 3})]),
        Reply(text="6"),
        Reply(tool_calls=[ToolCall("calc-multiply", {"a": 4, "b": 5})]),
        Reply(text="20"),
    )
    backend = sk_backend(tmp_path, fake_openai, shim_path)
    try:
        one = await backend.create_session()
        two = await backend.create_session()
        assert (await one.send("2*3?")).tool_invocations[0].result == "6.0"
        assert (await two.send("4*5?")).tool_invocations[0].result == "20.0"
    finally:
        await backend.aclose()  # closes both sessions and their servers
    starts = [e["pid"] for e in server_log(tmp_path) if e["event"] == "start"]
    assert len(set(starts)) == 2
    assert not any(pid_alive(pid) for pid in starts)


async def test_sk_env_file_reaches_the_server_and_env_wins_over_it(
    tmp_path: Path, fake_openai: FakeOpenAIServer, shim_path: str
) -> None:
    (tmp_path / "calc.env").write_text(
        "# the server's settings\nCALC_PREFIX=from the file\nexport CALC_EXTRA='x y'\n"
    )
    fake_openai.script(
        Reply(tool_calls=[ToolCall("calc-lookup", {"query": "speed of light"})]), Reply(text="c")
    )
    backend = sk_backend(tmp_path, fake_openai, shim_path, extra="env_file: calc.env")
    session = await backend.create_session()
    try:
        result = await session.send("c?")
    finally:
        await backend.aclose()
    assert result.tool_invocations[0].result == "fact: 299792458 m/s"  # env: beats env_file:
    [start] = [e for e in server_log(tmp_path) if e["event"] == "start"]
    assert "CALC_EXTRA" in start["env_keys"]


async def test_sk_session_abandoned_while_its_server_starts_stops_the_server(
    tmp_path: Path, fake_openai: FakeOpenAIServer, shim_path: str
) -> None:
    backend = sk_backend(tmp_path, fake_openai, shim_path)
    try:
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(backend.create_session(), timeout=0.01)
        # The start finishes in the background, then the server is stopped.
        for _ in range(200):
            starts = [e["pid"] for e in server_log(tmp_path) if e["event"] == "start"]
            if starts and not pid_alive(starts[0]):
                break
            await asyncio.sleep(0.05)
        else:
            pytest.fail(f"the abandoned server is still running (log: {server_log(tmp_path)})")
    finally:
        await backend.aclose()


async def test_sk_mcp_tool_error_is_captured_and_sent_to_the_model(
    tmp_path: Path, fake_openai: FakeOpenAIServer, shim_path: str
) -> None:
    call = ToolCall("calc-divide", {"a": 1, "b": 0})
    fake_openai.script(Reply(tool_calls=[call]), Reply(text="Cannot divide by zero."))
    backend = sk_backend(tmp_path, fake_openai, shim_path)
    session = await backend.create_session()
    try:
        result = await session.send("1/0?")
    finally:
        await session.close()
        await backend.aclose()
    [invocation] = result.tool_invocations
    assert invocation.name == "calc-divide"
    assert invocation.error is not None and "division by zero" in invocation.error
    tool_message = next(m for m in fake_openai.chat_requests[1].messages if m["role"] == "tool")
    assert "division by zero" in tool_message["content"]


async def test_sk_server_that_does_not_start_is_a_clear_init_error(
    tmp_path: Path, fake_openai: FakeOpenAIServer, shim_path: str
) -> None:
    backend = sk_backend(tmp_path, fake_openai, shim_path, server=tmp_path / "missing.py")
    try:
        with pytest.raises(BackendInitError) as raised:
            await backend.create_session()
    finally:
        await backend.aclose()
    message = str(raised.value)
    assert "MCP tool 'calc'" in message and "did not start" in message
    assert "missing.py" in message  # python's own complaint, from the server's stderr


async def test_sk_launcher_not_on_path_is_a_clear_init_error(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    with pytest.raises(BackendInitError, match=r"MCP tool 'calc': command `uvx` was not found"):
        sk_backend(tmp_path, fake_openai, str(tmp_path / "empty-bin"))


@pytest.mark.parametrize("transport", ["sse", "websocket", "http"])
async def test_unsupported_transports_are_clear_init_errors(
    tmp_path: Path, fake_openai: FakeOpenAIServer, transport: str
) -> None:
    url = {"sse": "https://mcp.example.com/sse", "websocket": "wss://mcp.example.com/ws"}.get(
        transport, "https://mcp.example.com/mcp"
    )
    remote = [
        {
            "name": "remote",
            "type": "mcp",
            "description": "A remote server",
            "transport": transport,
            "url": url,
        }
    ]
    sk_agent = Agent.model_validate(
        {
            "name": "a",
            "model": {"provider": "openai", "name": "gpt-fake", "endpoint": fake_openai.base_url},
            "instructions": {"inline": "x"},
            "tools": remote,
        }
    )
    claude_agent = Agent.model_validate(
        {
            "name": "a",
            "model": {"provider": "anthropic", "name": "claude-test-1"},
            "instructions": {"inline": "x"},
            "tools": remote,
        }
    )
    expected = rf"MCP tool 'remote': transport {transport} is not supported"
    with pytest.raises(BackendInitError, match=expected):
        SemanticKernelBackend(sk_agent, [], {"OPENAI_API_KEY": "k"})
    with pytest.raises(BackendInitError, match=expected):
        ClaudeBackend(claude_agent, [], {"ANTHROPIC_API_KEY": "k"})


# --------------------------------------------------------------------------- Claude


def claude_backend(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, shim_path: str, **load_options: Any
) -> ClaudeBackend:
    model = "provider: anthropic\nname: claude-test-1"
    agent = load(tmp_path, model, **load_options)
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": shim_path,
        "HOME": str(home),
        "ANTHROPIC_API_KEY": "sk-ant-fake-key-9876",
        "ANTHROPIC_BASE_URL": fake_anthropic.base_url,
        "CLAUDE_CODE_MAX_RETRIES": "0",
        "SOME_SECRET": "do-not-leak-1234",
    }
    return ClaudeBackend(agent, load_function_tools(agent, tmp_path), env, agent_dir=tmp_path)


async def test_claude_options_for_mcp_servers(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, shim_path: str
) -> None:
    from collections import deque

    from holodeck_lsp.runner.backends.claude.tool_server import ToolLog

    backend = claude_backend(tmp_path, fake_anthropic, shim_path)
    try:
        options = backend._options(ToolLog(), deque())
        assert options.allowed_tools == ["mcp__tools__subtract", "mcp__calc"]
        assert isinstance(options.mcp_servers, dict)
        calc = options.mcp_servers["calc"]
        assert calc["type"] == "stdio"
        assert calc["command"] == sys.executable  # the launcher, which then runs uvx
        assert calc["args"][-2:] == [str(tmp_path / "bin" / "uvx"), str(SERVER)]
        assert "ANTHROPIC_API_KEY" not in calc["env"] and "SOME_SECRET" not in calc["env"]
        assert calc["env"]["CALC_PREFIX"] == "fact: "
        assert options.env["MCP_TOOL_TIMEOUT"] == "60000"
    finally:
        await backend.aclose()

    narrowed = claude_backend(
        tmp_path,
        fake_anthropic,
        shim_path,
        claude="claude:\n  allowed_tools: [mcp__calc__multiply]\n",
    )
    try:
        options = narrowed._options(ToolLog(), deque())
        assert options.allowed_tools == ["mcp__calc__multiply"]
        assert isinstance(options.mcp_servers, dict)
        assert list(options.mcp_servers) == ["calc"]
    finally:
        await narrowed.aclose()


def _tool_results(request: Any) -> dict[str, str]:
    results: dict[str, str] = {}
    for message in request.body["messages"]:
        content = message.get("content")
        if not isinstance(content, list):
            continue
        for block in content:
            if block.get("type") == "tool_result":
                inner = block.get("content")
                if isinstance(inner, list):
                    inner = "".join(part.get("text", "") for part in inner)
                results[block["tool_use_id"]] = str(inner)
    return results


@needs_cli
async def test_claude_model_calls_mcp_tools_run_by_the_real_server(
    tmp_path: Path,
    fake_anthropic: FakeAnthropicServer,
    shim_path: str,
    secret_in_process_env: str,
) -> None:
    from tests.fakes.anthropic_server import ToolUse

    multiply = ToolUse("mcp__calc__multiply", {"a": 6, "b": 7})
    lookup = ToolUse("mcp__calc__lookup", {"query": "capital of France"})
    fake_anthropic.script(
        ClaudeReply(tool_uses=[multiply, lookup]),
        ClaudeReply(text="42, and the capital is Paris."),
    )
    backend = claude_backend(tmp_path, fake_anthropic, shim_path)
    session = await backend.create_session()
    try:
        result = await session.send("What is 6 times 7, and the capital of France?")
    finally:
        await session.close()
        await backend.aclose()

    first_request, answer_request = fake_anthropic.conversation_requests
    offered = {tool["name"] for tool in first_request.body.get("tools", [])}
    assert {"mcp__calc__multiply", "mcp__calc__lookup", "mcp__tools__subtract"} <= offered
    log = server_log(tmp_path)
    [start] = [e for e in log if e["event"] == "start"]
    calls = [e for e in log if e["event"] == "call"]
    assert sorted((c["tool"], c["result"]) for c in calls) == [
        ("lookup", "fact: Paris"),
        ("multiply", 42.0),
    ]
    assert start["cwd"] == str(tmp_path)
    results = _tool_results(answer_request)
    assert "42" in results[multiply.id] and "fact: Paris" in results[lookup.id]
    assert result.response == "42, and the capital is Paris."
    captured = [(c.name, c.args, c.error) for c in result.tool_invocations]
    assert captured == [
        ("mcp__calc__multiply", {"a": 6, "b": 7}, None),
        ("mcp__calc__lookup", {"query": "capital of France"}, None),
    ]
    multiply_call, lookup_call = result.tool_invocations
    assert isinstance(multiply_call.result, str) and "42" in multiply_call.result
    assert lookup_call.result is not None and "fact: Paris" in lookup_call.result
    assert all(c.duration_ms is not None for c in result.tool_invocations)
    # The CLI hands its whole environment (API key included) to the servers it starts: the
    # launcher strips it back to what the backend chose.
    assert secret_in_process_env not in start["env_keys"]
    assert "ANTHROPIC_API_KEY" not in start["env_keys"]
    assert set(start["env_keys"]) <= ALLOWED_SERVER_ENV
    assert not pid_alive(start["pid"])


@needs_cli
async def test_claude_mcp_tool_error_is_captured(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, shim_path: str
) -> None:
    from tests.fakes.anthropic_server import ToolUse

    fake_anthropic.script(
        ClaudeReply(tool_uses=[ToolUse("mcp__calc__divide", {"a": 1, "b": 0})]),
        ClaudeReply(text="Cannot divide by zero."),
    )
    backend = claude_backend(tmp_path, fake_anthropic, shim_path)
    session = await backend.create_session()
    try:
        result = await session.send("1/0?")
    finally:
        await session.close()
        await backend.aclose()
    [invocation] = result.tool_invocations
    assert invocation.name == "mcp__calc__divide"
    assert invocation.result is None
    assert invocation.error is not None and "division by zero" in invocation.error
