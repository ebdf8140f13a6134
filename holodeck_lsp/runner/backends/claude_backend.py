"""The Claude Agent SDK backend (provider `anthropic`).

One Claude Code CLI process per session (test case): `ClaudeSDKClient.connect()` once, then
`query()` per turn, reading messages until the turn's `ResultMessage`, so turn N+1 sees turn N.
`claude_agent_sdk` is imported only inside functions: importing this module stays cheap.

Decisions (documented in the backend guide):

* Function tools run in this process behind an SDK MCP server named `tools`; the model sees
  them as `mcp__tools__<name>` (expected-tool matching is by substring, so `subtract` matches).
  Each tool's JSON schema comes from the YAML `parameters:` block where given, else from the
  Python signature.
* MCP tools (`type: mcp`, `transport: stdio`) become external stdio servers of the CLI, one
  per tool named after its `name`, so the model sees `mcp__<name>__<server tool>`; the rule
  `mcp__<name>` pre-approves all of a server's tools (`allowed_tools` may narrow that to
  `mcp__<name>__<tool>` entries). Each CLI process (session) starts its own servers. The CLI
  hands its whole environment (API key included) to the servers it starts, so each server is
  started through a small launcher that drops every variable the backend did not choose (see
  `runner/agent_code/mcp_servers.py`).
  A call's result is the text the CLI reported to the model, its
  duration the time between the tool_use and tool_result messages. The largest
  `request_timeout` becomes the CLI's MCP_TOOL_TIMEOUT; sse/websocket/http servers are
  refused.
* The CLI's built-in tools are off (`tools=[]`) unless the agent's `claude:` block turns them
  on: `file_system.read` → Read/Glob/Grep, `.write` → Write, `.edit` → Edit/NotebookEdit,
  `bash.enabled` → Bash, `web_search` → WebSearch/WebFetch. `allowed_tools` narrows that set,
  `disallowed_tools` (and `bash.excluded_commands`) remove from it.
* Nobody can answer a permission prompt during a run, so the CLI runs in `dontAsk` mode with
  every enabled tool pre-approved through `allowed_tools` (`bypassPermissions` is refused when
  running as root, as CI does).
* The CLI gets a controlled environment: the key, locale/PATH/proxy/CA variables,
  `CLAUDE_CODE_*`/`DISABLE_*` settings, and nothing else — every other inherited variable is
  blanked (the SDK merges over `os.environ`, so blanking is the only way to withhold it).
  Unless the agent asks for `user` settings, `HOME` and `CLAUDE_CONFIG_DIR` point at a scratch
  folder deleted by `aclose()`, so no user configuration leaks in and nothing is written to the
  real home. Telemetry, error reporting, auto-update and non-essential traffic are off.
* The CLI's API calls go to a loopback relay (`claude/relay.py`, started by the first
  session, closed by `aclose()`), which forwards them to the real endpoint through the
  endpoint's limiter (shared with the judges) and retries them within the turn's retry
  budget; the CLI's own retries are off (`CLAUDE_CODE_MAX_RETRIES=0`). Each session has a
  relay path of its own, so the relay knows whose turn a request draws on.
* The tool loop (docs/running.md, "Tool loop"): the CLI's `max_turns` is the agent's
  `claude.max_turns` when written, else the run's `max_tool_rounds`; a turn the CLI ends there
  (`error_max_turns`) is answered with its last text and `tool_limit_reached`, not an error.
  Odd calls are answered by the CLI and recorded by `claude/tool_calls.py`.
* `model.max_tokens`, when written, becomes CLAUDE_CODE_MAX_OUTPUT_TOKENS; `temperature` and
  `top_p` are not settable through Claude Code and are ignored, as is `defer_loading`.
* Token usage per turn is the turn's `ResultMessage.usage`: input_tokens → prompt_tokens,
  output_tokens → completion_tokens, cache creation/read → the cache fields, and
  total_tokens = all four added up (every token the turn processed), so total ≥ prompt +
  completion always holds.
"""

from __future__ import annotations

import asyncio
import contextlib
import importlib.util
import shutil
import tempfile
import weakref
from collections import deque
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.runner.agent_code.function_tools import LoadedTool
from holodeck_lsp.runner.agent_code.mcp_servers import StdioServer, stdio_servers
from holodeck_lsp.runner.backends.base import (
    BackendInitError,
    BackendSessionError,
    SendResult,
    TurnFile,
)
from holodeck_lsp.runner.backends.claude.cli_environment import cli_environment, through_relay
from holodeck_lsp.runner.backends.claude.messages import stderr_tail, usage, with_files
from holodeck_lsp.runner.backends.claude.options import (
    agent_options,
    setting_sources,
    working_directory,
)
from holodeck_lsp.runner.backends.claude.provider_errors import turn_error
from holodeck_lsp.runner.backends.claude.relay import LimitingRelay, RelaySlot
from holodeck_lsp.runner.backends.claude.tool_calls import (
    PendingCall,
    finished_call,
    pending_call,
    unfinished_call,
)
from holodeck_lsp.runner.backends.claude.tool_server import TOOL_SERVER, ToolLog
from holodeck_lsp.runner.backends.instructions import read_instructions
from holodeck_lsp.runner.backends.providers import PROVIDERS
from holodeck_lsp.runner.limits.registry import settings
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.claude import ClaudeConfig
from holodeck_lsp.schema.llm import Provider
from holodeck_lsp.schema.tools import FunctionTool, MCPTool

if TYPE_CHECKING:
    from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient

_STDERR_LINES = 40
#: How long the next send waits for an abandoned (timed-out) turn to stop.
_SETTLE_SECONDS = 30.0


# -- the backend ------------------------------------------------------------------------------
class ClaudeBackend:
    """Runs an anthropic agent through the Claude Agent SDK and its bundled Claude Code CLI."""

    def __init__(
        self,
        agent: Agent,
        tools: list[LoadedTool],
        env: dict[str, str],
        *,
        agent_dir: Path | None = None,
    ) -> None:
        if importlib.util.find_spec("claude_agent_sdk") is None:
            raise BackendInitError(
                "provider anthropic needs the `claude` extra: pip install 'holodeck-lsp[claude]'"
            )
        self._agent = agent
        self._tools = list(tools)
        self._agent_dir = agent_dir
        self._config = agent.claude or ClaudeConfig()
        unsupported = [
            f"{tool.name!r} (type {tool.type})"
            for tool in agent.tools or []
            if not isinstance(tool, FunctionTool | MCPTool)
        ]
        if agent.claude is not None and agent.claude.agents:
            unsupported.append("`claude.agents` (subagents)")
        if unsupported:
            raise BackendInitError(
                "the Claude backend of holodeck-lsp runs only `type: function` and `type: mcp` "
                f"tools and no subagents yet; not supported: {', '.join(unsupported)}"
            )
        self._mcp_servers = self._stdio_servers(env)
        self._system_prompt = read_instructions(agent, agent_dir)
        self._scratch = Path(tempfile.mkdtemp(prefix="holodeck-claude-"))
        # Removed by aclose(), or when the backend is collected / the interpreter exits.
        self._remove_scratch = weakref.finalize(
            self, shutil.rmtree, self._scratch, ignore_errors=True
        )
        try:
            self._cli_env = cli_environment(
                agent.model,
                env,
                mcp_servers=self._mcp_servers,
                user_settings="user" in setting_sources(self._config),
                scratch=self._scratch,
            )
        except BackendInitError:
            self._remove_scratch()
            raise
        self._sessions: set[ClaudeSession] = set()
        # The CLI's API calls go through a loopback relay to this endpoint (relay.py), each
        # turn's retries within `retry_budget`; started by the first session, in the run's loop.
        self._upstream = PROVIDERS[Provider.ANTHROPIC].endpoint(agent.model.endpoint, env)
        self._retry_budget = settings().retry_budget
        #: The agent's own `claude.max_turns` when written, else the run's tool-round limit.
        self._max_tool_rounds = self._config.max_turns or settings().max_tool_rounds
        self._relay: LimitingRelay | None = None

    # -- configuration ------------------------------------------------------------------------
    def _stdio_servers(self, env: Mapping[str, str]) -> list[StdioServer]:
        servers = [
            server
            for server in stdio_servers(self._agent, env, self._agent_dir, backend="Claude")
            if server.load_tools  # the CLI uses a server's tools only
        ]
        for server in servers:
            if server.name == TOOL_SERVER and self._tools:
                raise BackendInitError(
                    f"MCP tool {server.name!r}: the name {TOOL_SERVER!r} is taken by the "
                    "function tools' server on Claude; rename the MCP tool"
                )
        return servers

    def _options(
        self, log: ToolLog, stderr: deque[str], cli_env: dict[str, str] | None = None
    ) -> ClaudeAgentOptions:
        """One session's CLI options (its handlers record into `log`); `cli_env` is the
        session's environment (its relay path), the backend's own when not given."""
        return agent_options(
            self._agent,
            self._config,
            self._tools,
            self._mcp_servers,
            system_prompt=self._system_prompt,
            cli_env=self._cli_env if cli_env is None else cli_env,
            cwd=working_directory(self._config, self._agent_dir),
            max_turns=self._max_tool_rounds,
            log=log,
            stderr=stderr,
        )

    # -- protocol --------------------------------------------------------------------------------

    async def create_session(self) -> ClaudeSession:
        from claude_agent_sdk import ClaudeSDKClient, ClaudeSDKError, CLINotFoundError

        log = ToolLog()
        stderr: deque[str] = deque(maxlen=_STDERR_LINES)
        relay = await self._started_relay()
        slot = relay.open_slot()
        cli_env = through_relay(self._cli_env, relay.base_url(slot))
        client = ClaudeSDKClient(self._options(log, stderr, cli_env))
        try:
            await client.connect()
        except CLINotFoundError as error:
            relay.close_slot(slot)
            raise BackendInitError(f"Claude Code CLI not found: {error}") from error
        except (ClaudeSDKError, OSError) as error:
            relay.close_slot(slot)
            raise BackendInitError(
                f"Claude Code CLI failed to start: {error}{stderr_tail(stderr)}"
            ) from error
        session = ClaudeSession(
            client,
            log,
            stderr,
            self._session_closed,
            slot=slot,
            retry_budget=self._retry_budget,
            max_tool_rounds=self._max_tool_rounds,
        )
        self._sessions.add(session)
        return session

    async def _started_relay(self) -> LimitingRelay:
        if self._relay is None:
            relay = LimitingRelay(self._upstream, self._agent.model.name)
            await relay.start()
            self._relay = relay
        return self._relay

    def _session_closed(self, session: ClaudeSession) -> None:
        self._sessions.discard(session)
        if self._relay is not None:
            self._relay.close_slot(session.slot)

    async def aclose(self) -> None:
        for session in list(self._sessions):
            await session.close()
        relay, self._relay = self._relay, None
        if relay is not None:
            await relay.aclose()
        self._remove_scratch()


class ClaudeSession:
    """One conversation: one CLI process, one `query()` per turn."""

    def __init__(
        self,
        client: ClaudeSDKClient,
        log: ToolLog,
        stderr: deque[str],
        on_close: Callable[[ClaudeSession], None],
        *,
        slot: RelaySlot,
        retry_budget: int,
        max_tool_rounds: int,
    ) -> None:
        #: This session's way through the relay: its turns' retry budgets.
        self.slot = slot
        self._retry_budget = retry_budget
        self._max_tool_rounds = max_tool_rounds
        self._client = client
        self._log = log
        self._stderr = stderr
        self._on_close = on_close
        self._closed = False
        #: Set when the CLI died or could not be brought back after an abandoned turn.
        self._dead: str | None = None
        #: A turn was cancelled (timeout) after its prompt reached the CLI: the CLI may still
        #: be answering it, so the next send interrupts it and drains its messages first.
        self._abandoned = False
        self._in_flight = False

    async def send(self, message: str, files: Sequence[TurnFile] = ()) -> SendResult:
        from claude_agent_sdk import ClaudeSDKError

        if self._closed:
            raise BackendSessionError("the session is closed", recoverable=False)
        if self._abandoned:
            await self._settle_abandoned_turn()
        if self._dead is not None:
            raise BackendSessionError(self._dead, recoverable=False)
        try:
            with self.slot.turn(self._retry_budget):  # every API call of the turn draws on it
                return await self._turn(message, files)
        except BackendSessionError:
            raise
        except ClaudeSDKError as error:
            self._dead = f"Claude Code CLI failed: {error}{stderr_tail(self._stderr)}"
            raise BackendSessionError(self._dead, recoverable=False) from error
        except BaseException:
            # Cancelled (timeout) or a bug. Was the prompt already with the CLI? Then the
            # next send settles that turn; if we cannot tell, the session is not trustworthy.
            if self._in_flight:
                self._abandoned = True
            else:
                self._dead = "the session was abandoned while sending a turn"
            raise

    async def _settle_abandoned_turn(self) -> None:
        """Interrupt the abandoned turn and read its messages up to its ResultMessage, so they
        are not taken for the next turn's answer."""
        from claude_agent_sdk import ResultMessage

        self._abandoned = False
        try:
            async with asyncio.timeout(_SETTLE_SECONDS):
                await self._client.interrupt()
                async for item in self._client.receive_response():
                    if isinstance(item, ResultMessage):
                        break
        except Exception as error:
            self._dead = (
                "the session could not recover from an abandoned turn: "
                f"{type(error).__name__}: {error}"
            )
        finally:
            self._in_flight = False

    async def _turn(self, message: str, files: Sequence[TurnFile]) -> SendResult:
        from claude_agent_sdk import (
            AssistantMessage,
            ResultMessage,
            TextBlock,
            ToolResultBlock,
            ToolUseBlock,
            UserMessage,
        )

        if files:
            await self._client.query(with_files(message, files))
        else:
            await self._client.query(message)
        self._in_flight = True
        pending: dict[str, PendingCall] = {}
        order: list[str] = []
        last_text = ""
        async for item in self._client.receive_response():
            if isinstance(item, AssistantMessage):
                texts = [b.text for b in item.content if isinstance(b, TextBlock)]
                if texts and item.parent_tool_use_id is None:
                    last_text = "".join(texts)
                for block in item.content:
                    if isinstance(block, ToolUseBlock) and block.id not in pending:
                        pending[block.id] = pending_call(block.name, block.input, block.id)
                        order.append(block.id)
            elif isinstance(item, UserMessage) and isinstance(item.content, list):
                for block in item.content:
                    if isinstance(block, ToolResultBlock) and block.tool_use_id in pending:
                        call = pending[block.tool_use_id]
                        call.invocation = finished_call(
                            call, block.content, block.is_error, self._log
                        )
            elif isinstance(item, ResultMessage):
                self._in_flight = False
                # At `max_turns` the CLI ran that many tool rounds and ended the turn: the
                # response is the last text the model wrote (docs/running.md, "Tool loop").
                stopped = item.subtype == "error_max_turns"
                if item.is_error and not stopped:
                    reason = item.result or "; ".join(item.errors or []) or item.subtype
                    raise turn_error(item.subtype, reason)
                response = item.result if item.result is not None and not stopped else last_text
                invocations = tuple(
                    pending[i].invocation or unfinished_call(pending[i]) for i in order
                )
                return SendResult(
                    response=response,
                    tool_invocations=invocations,
                    token_usage=usage(item.usage),
                    tool_limit_reached=self._max_tool_rounds if stopped else None,
                )
        # The stream ended without a result: the CLI process is gone.
        self._dead = f"Claude Code CLI stopped mid-turn{stderr_tail(self._stderr)}"
        raise BackendSessionError(self._dead, recoverable=False)

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._on_close(self)
        with contextlib.suppress(Exception):
            await self._client.disconnect()
