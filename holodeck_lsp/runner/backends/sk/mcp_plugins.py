"""MCP tools (`type: mcp`, `transport: stdio`) as SK kernel plugins, one per tool and session.

Each session starts its own server processes through SK's `MCPStdioPlugin`, one kernel plugin
per tool named after the tool's `name` (the model sees `<name>-<server tool>`), and closes them
with the session. Per session, not shared: a plugin could serve concurrent calls, but a
stateful server would carry one test case into the next. The plugin's `call_tool` is where a
call is recorded (result text, duration, the server's `isError`), through the same ContextVar
as function tools. See `runner/agent_code/mcp_servers.py` for the launcher lookup and the server's
environment (built, never inherited).
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol, TextIO

from holodeck_lsp.runner.agent_code.mcp_servers import StdioServer, stdio_servers
from holodeck_lsp.runner.backends.base import BackendInitError
from holodeck_lsp.runner.backends.sk.kernel_functions import PLUGIN_NAME, current_call
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.tools import FunctionTool

#: Lines of a failed MCP server's stderr quoted in the error.
_STDERR_LINES = 5
#: Background clean-ups of sessions abandoned while their servers were starting.
_cleanups: set[asyncio.Task[None]] = set()


class McpPlugin(Protocol):
    """What this module uses of the plugin `_plugin_class()` makes (an SK MCPStdioPlugin)."""

    name: str
    server: StdioServer
    failure: Exception | None
    errlog: TextIO

    async def connect(self) -> None: ...

    async def close(self) -> None: ...

    def stderr_tail(self) -> str: ...


def plugin_servers(
    agent: Agent, env: Mapping[str, str], agent_dir: Path | None
) -> list[StdioServer]:
    servers = stdio_servers(agent, env, agent_dir, backend="Semantic Kernel")
    if any(isinstance(tool, FunctionTool) for tool in agent.tools or []):
        for server in servers:
            if server.name == PLUGIN_NAME:
                raise BackendInitError(
                    f"MCP tool {server.name!r}: the name {PLUGIN_NAME!r} is taken by the "
                    "function tools' plugin on Semantic Kernel; rename the MCP tool"
                )
    return servers


@functools.cache
def _plugin_class() -> Callable[[StdioServer], McpPlugin]:
    """SK's stdio plugin, with four changes: the server's stderr goes to a temporary file
    (quoted when it fails to start, kept off the run's terminal otherwise); a failed start is
    reported instead of hanging `connect()` (SK 1.45 never sets its ready event when the
    server dies before answering `initialize`); every tool call is recorded; and a text-only
    result reaches the model as its text (SK 1.45 sends `str()` of a list of TextContent)."""
    from mcp.client.stdio import StdioServerParameters, stdio_client
    from semantic_kernel.connectors.mcp import (
        MCPStdioPlugin,
        _mcp_call_tool_result_to_kernel_contents,
    )

    class RecordingStdioPlugin(MCPStdioPlugin):
        def __init__(self, server: StdioServer) -> None:
            super().__init__(
                name=server.name,
                command=server.command,
                description=server.description,
                args=list(server.args),
                env=dict(server.env),
                encoding=server.encoding,
                request_timeout=server.request_timeout,
                load_tools=server.load_tools,
                load_prompts=server.load_prompts,
            )
            self.server = server
            self.failure: Exception | None = None
            self.errlog: TextIO = tempfile.TemporaryFile(  # noqa: SIM115 (closed with us)
                "w+", encoding="utf-8", errors="replace"
            )

        def get_mcp_client(self) -> Any:
            parameters = StdioServerParameters(
                command=self.server.command,
                args=list(self.server.args),
                env=dict(self.server.env),
                cwd=self.server.cwd,
                encoding=self.server.encoding or "utf-8",
            )
            return stdio_client(parameters, errlog=self.errlog)

        async def _inner_connect(self, ready_event: asyncio.Event) -> None:
            try:
                await super()._inner_connect(ready_event)
            except Exception as error:
                self.failure = error
                ready_event.set()

        async def call_tool(self, tool_name: str, **kwargs: Any) -> Any:
            if self.session is None or not self.load_tools_flag:
                return await super().call_tool(tool_name, **kwargs)  # SK's own error
            result, text = await _recorded_call(self.session, tool_name, kwargs)
            if all(getattr(block, "type", None) == "text" for block in result.content):
                # The text itself: SK would send the model the repr of a list of TextContent.
                return text
            return _mcp_call_tool_result_to_kernel_contents(result)

        def stderr_tail(self) -> str:
            with contextlib.suppress(OSError, ValueError):
                self.errlog.seek(0)
                lines = [line for line in self.errlog.read().splitlines() if line.strip()]
                if lines:
                    return "; its stderr ends: " + " | ".join(lines[-_STDERR_LINES:])
            return ""

    return RecordingStdioPlugin


async def _recorded_call(
    session: Any, tool_name: str, arguments: dict[str, Any]
) -> tuple[Any, str]:
    """Call `tool_name` on the MCP `session`, noting in the turn's current tool-call record
    that it ran, how long it took, what it returned (as text) and any error; the result and its
    text."""
    record, started = current_call.get(), time.perf_counter()
    try:
        result = await session.call_tool(tool_name, arguments=arguments)
    except Exception as error:
        if record is not None:
            record.error = f"{type(error).__name__}: {error}"
        raise
    finally:
        if record is not None:
            record.ran = True
            record.duration_ms = int((time.perf_counter() - started) * 1000)
    text = _mcp_text(result.content)
    if record is not None:
        record.result = text
        if result.isError:
            record.error = text or "the MCP tool reported an error"
    return result, text


def _mcp_text(content: Sequence[Any]) -> str:
    """What an MCP tool returned, as text: its text blocks joined, other blocks by type."""
    parts: list[str] = []
    for block in content:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(block, 'type', 'content')}]")
    return "\n".join(parts)


async def open_plugins(servers: Sequence[StdioServer]) -> list[McpPlugin]:
    """Start and connect one plugin per server; BackendInitError names the one that failed.

    The start is shielded from cancellation (the executor bounds session creation with
    `llm_timeout`): SK cannot stop a connection half way without leaving its server task and
    process behind, so an abandoned start finishes in the background and is then closed."""
    if not servers:
        return []
    plugin_class = _plugin_class()
    plugins = [plugin_class(server) for server in servers]
    connecting = asyncio.ensure_future(_connect_all(plugins))
    try:
        await asyncio.shield(connecting)
    except asyncio.CancelledError:
        cleanup = asyncio.ensure_future(_close_after(connecting, plugins))
        _cleanups.add(cleanup)
        cleanup.add_done_callback(_cleanups.discard)
        raise
    except BaseException:
        await close_plugins(plugins)
        raise
    return plugins


async def _connect_all(plugins: Sequence[McpPlugin]) -> None:
    for plugin in plugins:
        error: BaseException | None
        try:
            await plugin.connect()
            error = plugin.failure
        except Exception as raised:
            error = raised
        if error is not None:
            server = plugin.server
            raise BackendInitError(
                f"MCP tool {server.name!r}: the server `{server.describe()}` did not start: "
                f"{_causes(error)}{plugin.stderr_tail()}"
            ) from error


async def _close_after(connecting: asyncio.Future[None], plugins: Sequence[McpPlugin]) -> None:
    with contextlib.suppress(BaseException):
        await connecting
    await close_plugins(plugins)


async def close_plugins(plugins: Sequence[McpPlugin]) -> None:
    """Stop every server (SK closes stdin, waits briefly, then kills) and drop its log."""
    for plugin in plugins:
        with contextlib.suppress(Exception):
            await plugin.close()
        plugin.errlog.close()


def _causes(error: BaseException) -> str:
    """`outer message: inner message: …` down the __cause__ chain, without repeats."""
    messages: list[str] = []
    current: BaseException | None = error
    while current is not None and len(messages) < 5:
        text = str(current).strip() or type(current).__name__
        if text not in messages:
            messages.append(text)
        current = current.__cause__
    return ": ".join(messages)
