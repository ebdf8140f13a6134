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
  `runner/mcp_servers.py`). A call's result is the text the CLI reported to the model, its
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
* `model.max_tokens`, when written, becomes CLAUDE_CODE_MAX_OUTPUT_TOKENS; `temperature` and
  `top_p` are not settable through Claude Code and are ignored, as is `defer_loading`.
* Token usage per turn is the turn's `ResultMessage.usage`: input_tokens → prompt_tokens,
  output_tokens → completion_tokens, cache creation/read → the cache fields, and
  total_tokens = all four added up (every token the turn processed), so total ≥ prompt +
  completion always holds.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import enum
import importlib.util
import inspect
import json
import os
import shutil
import tempfile
import time
import types
import typing
import weakref
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from holodeck_lsp.runner.backend import (
    BackendInitError,
    BackendSessionError,
    SendResult,
    TurnFile,
)
from holodeck_lsp.runner.child_environment import inherited
from holodeck_lsp.runner.function_tools import LoadedTool
from holodeck_lsp.runner.json_values import json_safe
from holodeck_lsp.runner.mcp_servers import StdioServer, stdio_servers
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.claude import ClaudeConfig
from holodeck_lsp.schema.llm import AuthProvider
from holodeck_lsp.schema.results import TokenUsage, ToolInvocation
from holodeck_lsp.schema.tools import FunctionTool, MCPTool

if TYPE_CHECKING:
    from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, McpServerConfig, SdkMcpTool

#: Name of the in-process MCP server carrying the agent's function tools.
TOOL_SERVER = "tools"

#: Besides the system basics (child_environment), the CLI keeps its own settings.
_PASS_THROUGH_PREFIXES = ("CLAUDE_CODE_", "DISABLE_")
#: Credentials among the pass-through prefixes: only set when this backend chooses to.
_WITHHELD = frozenset({"CLAUDE_CODE_OAUTH_TOKEN", "CLAUDE_CODE_API_KEY_FILE_DESCRIPTOR"})
#: Quiet defaults; a caller's env may override them.
_QUIET = {
    "DISABLE_TELEMETRY": "1",
    "DISABLE_ERROR_REPORTING": "1",
    "DISABLE_AUTOUPDATER": "1",
    "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
}

_FILE_TOOLS = {
    "read": ("Read", "Glob", "Grep"),
    "write": ("Write",),
    "edit": ("Edit", "NotebookEdit"),
}
_STDERR_LINES = 40
#: How long the next send waits for an abandoned (timed-out) turn to stop.
_SETTLE_SECONDS = 30.0


# -- JSON schema of a tool's parameters ---------------------------------------------------------
def _type_schema(annotation: Any) -> tuple[dict[str, Any], bool]:
    """JSON schema for a Python annotation, and whether None is allowed."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}, False
    if annotation is None or annotation is type(None):
        return {"type": "null"}, True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        schema, nullable = _type_schema(args[0])
        description = next((a for a in args[1:] if isinstance(a, str)), None)
        return ({**schema, "description": description} if description else schema), nullable
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in args if a is not type(None)]
        nullable = len(members) < len(args)
        if len(members) == 1:
            return _type_schema(members[0])[0], nullable
        return {"anyOf": [_type_schema(a)[0] for a in members]}, nullable
    if origin is typing.Literal:
        return {"enum": list(args)}, False
    simple = {bool: "boolean", int: "integer", float: "number", str: "string", dict: "object"}
    if annotation in simple:
        return {"type": simple[annotation]}, False
    if origin is dict:
        return {"type": "object"}, False
    if annotation in (list, tuple, set, frozenset) or origin in (list, tuple, set, frozenset):
        if args and origin is not tuple:
            return {"type": "array", "items": _type_schema(args[0])[0]}, False
        return {"type": "array"}, False
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {"enum": [member.value for member in annotation]}, False
    return {}, False


def parameters_schema(tool: LoadedTool) -> dict[str, Any]:
    """The tool's parameters as a JSON object schema: the YAML `parameters:` entry of a
    parameter wins, else its annotation; parameters without a default (and not Optional) are
    required."""
    try:
        hints = typing.get_type_hints(tool.function, include_extras=True)
    except Exception:  # unresolvable string annotations: fall back to "any"
        hints = {}
    declared = tool.parameters or {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    takes_kwargs = False
    for name, parameter in tool.signature.parameters.items():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            takes_kwargs = True
            continue
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        schema, nullable = _type_schema(hints.get(name, parameter.annotation))
        if name in declared:
            schema = dict(declared[name])
        properties[name] = schema
        if parameter.default is inspect.Parameter.empty and not nullable:
            required.append(name)
    if takes_kwargs:  # YAML-declared extras reach **kwargs
        for name, schema in declared.items():
            properties.setdefault(name, dict(schema))
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    return result


# -- per-session record of what the tool handlers did ---------------------------------------
@dataclass
class _HandlerCall:
    name: str
    args: dict[str, Any]
    result: Any = None
    error: str | None = None
    duration_ms: int = 0
    claimed: bool = False


@dataclass
class _ToolLog:
    calls: list[_HandlerCall] = field(default_factory=list)

    def claim(self, name: str, args: Mapping[str, Any]) -> _HandlerCall | None:
        """The oldest unclaimed handler call of `name` with these arguments."""
        for call in self.calls:
            if not call.claimed and call.name == name and call.args == dict(args):
                call.claimed = True
                return call
        return None


def _make_handler(
    tool: LoadedTool, log: _ToolLog
) -> Callable[[dict[str, Any]], typing.Awaitable[dict[str, Any]]]:
    accepted = {
        name
        for name, p in tool.signature.parameters.items()
        if p.kind not in (inspect.Parameter.VAR_POSITIONAL, inspect.Parameter.VAR_KEYWORD)
    }
    takes_kwargs = any(
        p.kind is inspect.Parameter.VAR_KEYWORD for p in tool.signature.parameters.values()
    )
    is_async = inspect.iscoroutinefunction(tool.function)

    async def handler(args: dict[str, Any]) -> dict[str, Any]:
        call = _HandlerCall(name=tool.name, args=dict(args))
        log.calls.append(call)
        kwargs = args if takes_kwargs else {k: v for k, v in args.items() if k in accepted}
        started = time.perf_counter()
        try:
            if is_async:
                value = await tool.function(**kwargs)
            else:
                # Off the event loop: the CLI's control messages keep flowing while it runs.
                value = await asyncio.to_thread(tool.function, **kwargs)
                if inspect.isawaitable(value):
                    value = await value
        except Exception as error:
            call.duration_ms = int((time.perf_counter() - started) * 1000)
            call.error = f"{type(error).__name__}: {error}"
            return {"content": [{"type": "text", "text": f"Error: {call.error}"}], "is_error": True}
        call.duration_ms = int((time.perf_counter() - started) * 1000)
        call.result = json_safe(value)
        text = value if isinstance(value, str) else json.dumps(call.result, default=str)
        return {"content": [{"type": "text", "text": text}]}

    return handler


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
        self._system_prompt = self._read_instructions()
        self._scratch = Path(tempfile.mkdtemp(prefix="holodeck-claude-"))
        # Removed by aclose(), or when the backend is collected / the interpreter exits.
        self._remove_scratch = weakref.finalize(
            self, shutil.rmtree, self._scratch, ignore_errors=True
        )
        try:
            self._cli_env = self._build_env(env)
        except BackendInitError:
            self._remove_scratch()
            raise
        self._sessions: set[ClaudeSession] = set()

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

    def _read_instructions(self) -> str:
        instructions = self._agent.instructions
        if instructions.inline is not None:
            return instructions.inline
        assert instructions.file is not None
        path = Path(instructions.file)
        if not path.is_absolute():
            path = (self._agent_dir or Path.cwd()) / path
        try:
            return path.read_text(encoding="utf-8")
        except OSError as error:
            raise BackendInitError(
                f"instructions file {path} cannot be read: {error.strerror or error}"
            ) from error

    def _setting_sources(self) -> list[typing.Literal["user", "project", "local"]]:
        sources = self._config.setting_sources or []
        if "all" in sources:
            return ["user", "project", "local"]
        return [s for s in ("user", "project", "local") if s in sources]

    def _build_env(self, env: Mapping[str, str]) -> dict[str, str]:
        """What the CLI process sees: allow-listed variables, the credential, quiet defaults."""
        model = self._agent.model
        auth = model.auth_provider or AuthProvider.API_KEY
        if auth not in (AuthProvider.API_KEY, AuthProvider.OAUTH_TOKEN):
            raise BackendInitError(
                f"model.auth_provider {auth.value} is not supported by holodeck-lsp yet; "
                "use api_key (ANTHROPIC_API_KEY) or oauth_token (CLAUDE_CODE_OAUTH_TOKEN)"
            )
        controlled = inherited(env, prefixes=_PASS_THROUGH_PREFIXES, withheld=_WITHHELD)
        for key, value in _QUIET.items():
            controlled.setdefault(key, value)
        secret = model.api_key.get_secret_value() if model.api_key is not None else ""
        if auth is AuthProvider.API_KEY:
            key = secret or env.get("ANTHROPIC_API_KEY", "")
            if not key.strip():
                raise BackendInitError(
                    "provider anthropic needs an API key: set ANTHROPIC_API_KEY or "
                    "model.api_key (e.g. api_key: ${ANTHROPIC_API_KEY})"
                )
            controlled["ANTHROPIC_API_KEY"] = key
        else:
            token = secret or env.get("CLAUDE_CODE_OAUTH_TOKEN", "")
            if not token.strip():
                raise BackendInitError(
                    "model.auth_provider oauth_token needs CLAUDE_CODE_OAUTH_TOKEN or "
                    "model.api_key holding the token"
                )
            controlled["CLAUDE_CODE_OAUTH_TOKEN"] = token
        if self._mcp_servers:
            longest = max(server.request_timeout for server in self._mcp_servers)
            controlled.setdefault("MCP_TOOL_TIMEOUT", str(longest * 1000))  # milliseconds
        if "max_tokens" in model.model_fields_set and model.max_tokens is not None:
            # Only when written: the schema's default (1000) would cut agentic answers short.
            controlled["CLAUDE_CODE_MAX_OUTPUT_TOKENS"] = str(model.max_tokens)
        base_url = model.endpoint or env.get("ANTHROPIC_BASE_URL")
        if base_url:
            controlled["ANTHROPIC_BASE_URL"] = base_url
        if "user" in self._setting_sources():
            for key in ("HOME", "CLAUDE_CONFIG_DIR"):
                if key in env:
                    controlled[key] = env[key]
        else:
            controlled["HOME"] = str(self._scratch)
            controlled["CLAUDE_CONFIG_DIR"] = str(self._scratch / ".claude")
        # The SDK merges options.env over os.environ: blank what we did not choose to pass.
        blanked = {key: "" for key in os.environ if key not in controlled}
        return {**blanked, **controlled}

    def _builtin_tools(self) -> list[str]:
        config = self._config
        enabled: list[str] = []
        if config.file_system is not None:
            for flag, names in _FILE_TOOLS.items():
                if getattr(config.file_system, flag):
                    enabled.extend(names)
        if config.bash is not None and config.bash.enabled:
            enabled.append("Bash")
        if config.web_search:
            enabled.extend(("WebSearch", "WebFetch"))
        return enabled

    def _cwd(self) -> Path:
        base = self._agent_dir or Path.cwd()
        if self._config.working_directory:
            return base / self._config.working_directory
        return base

    def _options(self, log: _ToolLog, stderr: deque[str]) -> ClaudeAgentOptions:
        from claude_agent_sdk import ClaudeAgentOptions, create_sdk_mcp_server, tool

        config = self._config
        mcp_name = {t.name: f"mcp__{TOOL_SERVER}__{t.name}" for t in self._tools}
        functions = list(self._tools)
        builtins = self._builtin_tools()
        # An MCP tool's rules: `mcp__<name>` (the whole server) or `mcp__<name>__<tool>`.
        server_rules = {s.name: [f"mcp__{s.name}"] for s in self._mcp_servers}
        if config.allowed_tools is not None:
            # "Only these tools may be used": the model is not even shown the others.
            wanted = set(config.allowed_tools)
            functions = [t for t in functions if {t.name, mcp_name[t.name]} & wanted]
            builtins = [name for name in builtins if name in wanted]
            for name in server_rules:
                if not {name, f"mcp__{name}", f"mcp__{name}__*"} & wanted:
                    server_rules[name] = sorted(w for w in wanted if w.startswith(f"mcp__{name}__"))
            server_rules = {name: rules for name, rules in server_rules.items() if rules}
        sdk_tools: list[SdkMcpTool[Any]] = [
            tool(loaded.name, loaded.description, parameters_schema(loaded))(
                _make_handler(loaded, log)
            )
            for loaded in functions
        ]
        servers: dict[str, McpServerConfig] = {}
        if sdk_tools:
            servers[TOOL_SERVER] = create_sdk_mcp_server(TOOL_SERVER, tools=sdk_tools)
        for server in self._mcp_servers:
            if server.name in server_rules:
                command, args, env = server.scrubbed_launch()
                servers[server.name] = {
                    "type": "stdio",
                    "command": command,
                    "args": args,
                    "env": env,
                }
        allowed = [
            *(mcp_name[t.name] for t in functions),
            *(rule for rules in server_rules.values() for rule in rules),
            *builtins,
        ]
        server_names = {s.name: f"mcp__{s.name}" for s in self._mcp_servers}
        disallowed = [
            mcp_name.get(name) or server_names.get(name, name)
            for name in config.disallowed_tools or []
        ]
        if config.bash is not None:
            disallowed.extend(f"Bash({command}:*)" for command in config.bash.excluded_commands)
        thinking: Any = None
        if config.extended_thinking is not None and config.extended_thinking.enabled:
            thinking = {
                "type": "enabled",
                "budget_tokens": config.extended_thinking.budget_tokens,
            }
        return ClaudeAgentOptions(
            model=self._agent.model.name,
            system_prompt=self._system_prompt,
            tools=builtins,
            mcp_servers=servers,
            strict_mcp_config=True,
            allowed_tools=allowed,
            disallowed_tools=disallowed,
            permission_mode="dontAsk",
            max_turns=config.max_turns,
            max_budget_usd=config.max_budget_usd,
            effort=config.effort,
            fallback_model=config.fallback_model,
            thinking=thinking,
            setting_sources=self._setting_sources(),
            cwd=self._cwd(),
            env=self._cli_env,
            stderr=stderr.append,
            # Test inputs are data: no `@file` expansion or slash commands.
            verbatim_prompts=True,
        )

    # -- protocol --------------------------------------------------------------------------------
    async def create_session(self) -> ClaudeSession:
        from claude_agent_sdk import ClaudeSDKClient, ClaudeSDKError, CLINotFoundError

        log = _ToolLog()
        stderr: deque[str] = deque(maxlen=_STDERR_LINES)
        client = ClaudeSDKClient(self._options(log, stderr))
        try:
            await client.connect()
        except CLINotFoundError as error:
            raise BackendInitError(f"Claude Code CLI not found: {error}") from error
        except (ClaudeSDKError, OSError) as error:
            raise BackendInitError(
                f"Claude Code CLI failed to start: {error}{_stderr_tail(stderr)}"
            ) from error
        session = ClaudeSession(client, log, stderr, self._sessions.discard)
        self._sessions.add(session)
        return session

    async def aclose(self) -> None:
        for session in list(self._sessions):
            await session.close()
        self._remove_scratch()


def _stderr_tail(lines: Sequence[str]) -> str:
    tail = [line for line in lines if line.strip()][-5:]
    return ("\nCLI stderr:\n" + "\n".join(tail)) if tail else ""


def _usage(raw: Mapping[str, Any] | None) -> TokenUsage | None:
    if not raw:
        return None

    def count(key: str) -> int:
        value = raw.get(key)
        return value if isinstance(value, int) and value >= 0 else 0

    prompt = count("input_tokens")
    completion = count("output_tokens")
    created = count("cache_creation_input_tokens")
    read = count("cache_read_input_tokens")
    return TokenUsage(
        prompt_tokens=prompt,
        completion_tokens=completion,
        total_tokens=prompt + completion + created + read,
        cache_creation_tokens=created,
        cache_read_tokens=read,
    )


def _result_text(content: str | list[dict[str, Any]] | None) -> str:
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(str(block.get("text", "")) for block in content if block.get("type") == "text")


@dataclass
class _PendingCall:
    name: str
    args: dict[str, Any]
    started: float
    invocation: ToolInvocation | None = None


class ClaudeSession:
    """One conversation: one CLI process, one `query()` per turn."""

    def __init__(
        self,
        client: ClaudeSDKClient,
        log: _ToolLog,
        stderr: deque[str],
        on_close: Callable[[ClaudeSession], None],
    ) -> None:
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
            return await self._turn(message, files)
        except BackendSessionError:
            raise
        except ClaudeSDKError as error:
            self._dead = f"Claude Code CLI failed: {error}{_stderr_tail(self._stderr)}"
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
            await self._client.query(_with_files(message, files))
        else:
            await self._client.query(message)
        self._in_flight = True
        pending: dict[str, _PendingCall] = {}
        order: list[str] = []
        last_text = ""
        async for item in self._client.receive_response():
            if isinstance(item, AssistantMessage):
                texts = [b.text for b in item.content if isinstance(b, TextBlock)]
                if texts and item.parent_tool_use_id is None:
                    last_text = "".join(texts)
                for block in item.content:
                    if isinstance(block, ToolUseBlock) and block.id not in pending:
                        pending[block.id] = _PendingCall(
                            block.name, dict(block.input), time.perf_counter()
                        )
                        order.append(block.id)
            elif isinstance(item, UserMessage) and isinstance(item.content, list):
                for block in item.content:
                    if isinstance(block, ToolResultBlock) and block.tool_use_id in pending:
                        call = pending[block.tool_use_id]
                        call.invocation = self._finish(call, block.content, block.is_error)
            elif isinstance(item, ResultMessage):
                self._in_flight = False
                if item.is_error:
                    reason = item.result or "; ".join(item.errors or []) or item.subtype
                    raise BackendSessionError(f"Claude turn failed ({item.subtype}): {reason}")
                response = item.result if item.result is not None else last_text
                invocations = tuple(
                    pending[i].invocation or self._unfinished(pending[i]) for i in order
                )
                return SendResult(
                    response=response,
                    tool_invocations=invocations,
                    token_usage=_usage(item.usage),
                )
        # The stream ended without a result: the CLI process is gone.
        self._dead = f"Claude Code CLI stopped mid-turn{_stderr_tail(self._stderr)}"
        raise BackendSessionError(self._dead, recoverable=False)

    def _finish(
        self, call: _PendingCall, content: str | list[dict[str, Any]] | None, is_error: bool | None
    ) -> ToolInvocation:
        prefix = f"mcp__{TOOL_SERVER}__"
        handled = (
            self._log.claim(call.name.removeprefix(prefix), call.args)
            if call.name.startswith(prefix)
            else None
        )
        if handled is not None:  # our own function ran: its real value and timing
            return ToolInvocation(
                name=call.name,
                args=call.args,
                result=handled.result,
                duration_ms=handled.duration_ms,
                error=handled.error,
            )
        text = _result_text(content)
        return ToolInvocation(
            name=call.name,
            args=call.args,
            result=None if is_error else text,
            duration_ms=int((time.perf_counter() - call.started) * 1000),
            error=(text or "tool failed") if is_error else None,
        )

    @staticmethod
    def _unfinished(call: _PendingCall) -> ToolInvocation:
        return ToolInvocation(name=call.name, args=call.args, error="no result was returned")

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._on_close(self)
        with contextlib.suppress(Exception):
            await self._client.disconnect()


async def _with_files(message: str, files: Sequence[TurnFile]) -> AsyncIterator[dict[str, Any]]:
    """One user message: the files as content blocks (text inline, images base64), then the
    turn's text."""
    content: list[dict[str, Any]] = []
    for turn_file in files:
        label = turn_file.path.name + (
            f" — {turn_file.description}" if turn_file.description else ""
        )
        if turn_file.kind == "image" and turn_file.data is not None:
            content.append({"type": "text", "text": f"Attached image: {label}"})
            content.append(
                {
                    "type": "image",
                    "source": {
                        "type": "base64",
                        "media_type": turn_file.media_type,
                        "data": base64.b64encode(turn_file.data).decode("ascii"),
                    },
                }
            )
        else:
            body = turn_file.text or ""
            content.append({"type": "text", "text": f'<file name="{label}">\n{body}\n</file>'})
    content.append({"type": "text", "text": message})
    yield {
        "type": "user",
        "message": {"role": "user", "content": content},
        "parent_tool_use_id": None,
    }
