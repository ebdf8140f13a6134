"""openai, azure_openai and ollama agents on Semantic Kernel (extra `sk`).

One backend per agent holds the chat service (one HTTP client) and the agent's function tools
as kernel functions; each session gets its own Kernel and ChatHistory, so sessions never see
each other's turns or tool calls and can run concurrently.

Ollama runs through its OpenAI-compatible endpoint (`<endpoint>/v1`), so all three providers
use SK's OpenAI connector with an `AsyncOpenAI`/`AsyncAzureOpenAI` client built here: that
keeps SK from reading `OPENAI_*` / `AZURE_OPENAI_*` settings out of the process environment
behind the `env` we were given, and lets plain-HTTP endpoints (local proxies, test servers)
through, which SK's own Azure settings reject.

How a turn is captured: SK's auto function calling appends the model's tool-call messages and
the tool results to the session's ChatHistory while it loops, so after a send the messages
added since the user message are exactly this turn's calls, in the model's order. Each call's
raw return value, duration and exception come from a wrapper around the tool function, tied to
the call id by an auto-function-invocation filter (through a ContextVar: SK runs each call of
one model response in its own task). Token usage is summed over every model response of the
turn — the tool-call responses stay in the history with their `usage` metadata.

MCP tools (`type: mcp`, `transport: stdio`): each session starts its own server processes
through SK's `MCPStdioPlugin`, one kernel plugin per tool named after the tool's `name` (the
model sees `<name>-<server tool>`), and closes them with the session. Per session, not shared:
a plugin could serve concurrent calls, but a stateful server would carry one test case into the
next. The plugin's `call_tool` is where a call is recorded (result text, duration, the server's
`isError`), through the same ContextVar as function tools. See `runner/mcp_servers.py` for the
launcher lookup and the server's environment (built, never inherited).

Semantic Kernel and openai are imported only inside functions: importing this module is cheap.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import inspect
import json
import tempfile
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TextIO, TypeVar

from holodeck_lsp.runner.backend import (
    BackendError,
    BackendInitError,
    BackendSessionError,
    BackendTimeoutError,
    SendResult,
    TurnFile,
)
from holodeck_lsp.runner.function_tools import LoadedTool
from holodeck_lsp.runner.json_values import json_safe
from holodeck_lsp.runner.mcp_servers import StdioServer, stdio_servers
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.llm import LLMProvider, Provider
from holodeck_lsp.schema.results import TokenUsage, ToolInvocation
from holodeck_lsp.schema.tools import FunctionTool

if TYPE_CHECKING:
    from openai import AsyncOpenAI
    from semantic_kernel import Kernel
    from semantic_kernel.connectors.ai.open_ai.services.open_ai_chat_completion_base import (
        OpenAIChatCompletionBase,
    )
    from semantic_kernel.connectors.ai.prompt_execution_settings import PromptExecutionSettings
    from semantic_kernel.contents import ChatHistory, ChatMessageContent
    from semantic_kernel.filters import AutoFunctionInvocationContext
    from semantic_kernel.functions import KernelFunction

#: Kernel plugin holding the agent's function tools; the model sees `tools-<name>`.
PLUGIN_NAME = "tools"
OLLAMA_DEFAULT_ENDPOINT = "http://localhost:11434"
#: Ollama ignores the key, but the OpenAI client refuses to start without one.
OLLAMA_PLACEHOLDER_KEY = "ollama"
#: Lines of a failed MCP server's stderr quoted in the error.
_STDERR_LINES = 5
#: HTTP statuses after which every later turn would fail the same way (bad key, no access,
#: unknown model or deployment): the session is dead.
_FATAL_STATUSES = frozenset({401, 403, 404})


@dataclass(slots=True)
class _CallRecord:
    """What the tool wrapper saw while running one call."""

    ran: bool = False
    result: Any = None
    error: str | None = None
    duration_ms: int | None = None


#: The record of the tool call running in the current task (set by the invocation filter).
_current_call: ContextVar[_CallRecord | None] = ContextVar("holodeck_sk_current_call", default=None)


# --------------------------------------------------------------------------- the backend


class SemanticKernelBackend:
    """An AgentBackend for providers openai, azure_openai and ollama."""

    def __init__(
        self,
        agent: Agent,
        tools: list[LoadedTool],
        env: dict[str, str],
        *,
        agent_dir: Path | None = None,
        max_retries: int = 2,
    ) -> None:
        """Build the chat service and kernel functions; BackendInitError says what to fix.

        `agent_dir` resolves `instructions.file` (default: the current directory).
        `max_retries` is the OpenAI client's own retry count for 429/5xx/connection errors.
        """
        try:
            import semantic_kernel  # noqa: F401
        except ImportError as error:  # this module imports fine without it: check here
            raise BackendInitError(
                f"provider {agent.model.provider.value} needs the `sk` extra: "
                f"pip install 'holodeck-lsp[sk]' ({error})"
            ) from error
        self.agent = agent
        self.instructions = _read_instructions(agent, agent_dir)
        # Before the HTTP client: nothing to release when a server cannot be used.
        self._mcp_servers = _mcp_servers(agent, env, agent_dir)
        timeout = agent.execution.llm_timeout if agent.execution else None
        self._client = _make_client(agent.model, env, max_retries=max_retries, timeout=timeout)
        self._service = _make_service(agent.model, self._client)
        self._functions = [_kernel_function(tool) for tool in tools]
        self._sessions: set[SemanticKernelSession] = set()
        self._closed = False

    @property
    def base_url(self) -> str:
        """Where chat requests go (for error messages and tests)."""
        return str(self._client.base_url)

    async def create_session(self) -> SemanticKernelSession:
        if self._closed:
            raise BackendInitError("the Semantic Kernel backend was already closed")
        from semantic_kernel import Kernel
        from semantic_kernel.contents import ChatHistory
        from semantic_kernel.filters import FilterTypes

        kernel = Kernel()
        kernel.add_service(self._service)
        if self._functions:
            kernel.add_functions(plugin_name=PLUGIN_NAME, functions=list(self._functions))
        plugins = await _open_plugins(self._mcp_servers)
        for plugin in plugins:
            kernel.add_plugin(plugin)
        session = SemanticKernelSession(
            kernel=kernel,
            history=ChatHistory(system_message=self.instructions),
            settings=self._settings(),
            service=self._service,
            describe=self._describe,
            plugins=plugins,
            on_close=self._sessions.discard,
        )
        kernel.add_filter(FilterTypes.AUTO_FUNCTION_INVOCATION, session._invocation_filter)
        self._sessions.add(session)
        return session

    async def aclose(self) -> None:
        if not self._closed:
            self._closed = True
            for session in list(self._sessions):
                await session.close()
            await self._client.close()

    def _settings(self) -> PromptExecutionSettings:
        from semantic_kernel.connectors.ai.function_choice_behavior import FunctionChoiceBehavior

        model = self.agent.model
        settings_class = self._service.get_prompt_execution_settings_class()
        settings: PromptExecutionSettings = settings_class(
            service_id=self._service.service_id,
            temperature=model.temperature,
            max_tokens=model.max_tokens,
            top_p=model.top_p,
            function_choice_behavior=(
                FunctionChoiceBehavior.Auto() if self._functions or self._mcp_servers else None
            ),
        )
        return settings

    def _describe(self) -> str:
        return f"{self.agent.model.provider.value} model {self.agent.model.name} at {self.base_url}"


# --------------------------------------------------------------------------- one conversation


class SemanticKernelSession:
    """One conversation: a ChatHistory whose system message is the agent's instructions."""

    def __init__(
        self,
        *,
        kernel: Kernel,
        history: ChatHistory,
        settings: PromptExecutionSettings,
        service: OpenAIChatCompletionBase,
        describe: Callable[[], str],
        plugins: Sequence[_McpPlugin] = (),
        on_close: Callable[[SemanticKernelSession], None] | None = None,
    ) -> None:
        self.kernel = kernel
        self.history = history
        self._settings = settings
        self._service = service
        self._describe = describe
        self._plugins = list(plugins)
        self._on_close = on_close
        self._calls: dict[str, _CallRecord] = {}
        self._closed = False

    async def send(self, message: str, files: Sequence[TurnFile] = ()) -> SendResult:
        if self._closed:
            raise BackendSessionError("the session is closed", recoverable=False)
        start = len(self.history.messages)
        self.history.add_message(_user_message(message, files))
        self._calls = {}
        try:
            answer = await self._service.get_chat_message_content(
                self.history, self._settings, kernel=self.kernel
            )
            if answer is None:  # SK raises before this happens; kept for the type
                raise BackendSessionError(f"{self._describe()} returned no answer")
        except BaseException as error:
            # Drop the half turn, so a later turn sends a well-formed history.
            del self.history.messages[start:]
            if isinstance(error, Exception):
                raise _session_error(error, self._describe()) from error
            raise  # cancellation (e.g. the executor's timeout) goes through unchanged
        turn = self.history.messages[start + 1 :]
        self.history.add_message(answer)
        return SendResult(
            response=_text_of(answer),
            tool_invocations=tuple(_invocations(turn, self._calls)),
            token_usage=_usage([*turn, answer]),
        )

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._on_close is not None:
            self._on_close(self)
        plugins, self._plugins = self._plugins, []
        await _close_plugins(plugins)

    async def _invocation_filter(
        self,
        context: AutoFunctionInvocationContext,
        next: Callable[[AutoFunctionInvocationContext], Awaitable[None]],  # SK passes it as `next=`
    ) -> None:
        """Give the tool wrapper a record for this call id (SK runs each call in its own task)."""
        record = _CallRecord()
        call = context.function_call_content
        if call is not None and call.id is not None:
            self._calls[call.id] = record
        token = _current_call.set(record)
        try:
            await next(context)
        finally:
            _current_call.reset(token)


# --------------------------------------------------------------------------- configuration


def _read_instructions(agent: Agent, agent_dir: Path | None) -> str:
    if agent.instructions.inline is not None:
        return agent.instructions.inline
    assert agent.instructions.file is not None  # the schema requires one of the two
    path = (agent_dir or Path.cwd()) / agent.instructions.file
    try:
        return path.read_text(encoding="utf-8")
    except OSError as error:
        raise BackendInitError(
            f"instructions.file {agent.instructions.file!r}: cannot read {path} "
            f"({error.strerror or error}); the path is relative to the agent's folder"
        ) from error


def _secret(model: LLMProvider) -> str | None:
    key = model.api_key.get_secret_value().strip() if model.api_key is not None else ""
    return key or None


def ollama_host(env: Mapping[str, str]) -> str | None:
    """`OLLAMA_HOST` as a URL, as Ollama's own CLI reads it (`127.0.0.1:8765`, `myhost`,
    `http://myhost:11434`): the server to use when the agent sets no `model.endpoint`."""
    raw = env.get("OLLAMA_HOST", "").strip()
    if not raw:
        return None
    url = raw if "://" in raw else f"http://{raw}"
    scheme, rest = url.split("://", 1)
    host = rest.split("/", 1)[0]
    if ":" not in host.rsplit("]", 1)[-1]:  # no port (an IPv6 literal keeps its colons)
        url = f"{scheme}://{host}:11434" + rest[len(host) :]
    return url


def _make_client(
    model: LLMProvider, env: Mapping[str, str], *, max_retries: int, timeout: float | None
) -> AsyncOpenAI:
    """The HTTP client for the provider; BackendInitError names the missing key or setting."""
    from openai import AsyncAzureOpenAI, AsyncOpenAI, OpenAIError

    options: dict[str, Any] = {"max_retries": max_retries}
    if timeout is not None:
        options["timeout"] = float(timeout)
    provider = model.provider
    try:
        if provider is Provider.OPENAI:
            key = _secret(model) or env.get("OPENAI_API_KEY", "").strip()
            if not key:
                raise BackendInitError(
                    "provider openai needs an API key: set the OPENAI_API_KEY environment "
                    "variable or `model.api_key` in agent.yaml (e.g. `api_key: ${MY_KEY}`)"
                )
            # Explicit, so OPENAI_BASE_URL from the process environment cannot override it.
            base_url = model.endpoint or env.get("OPENAI_BASE_URL") or "https://api.openai.com/v1"
            return AsyncOpenAI(api_key=key, base_url=base_url, **options)
        if provider is Provider.AZURE_OPENAI:
            key = _secret(model) or env.get("AZURE_OPENAI_API_KEY", "").strip()
            if not key:
                raise BackendInitError(
                    "provider azure_openai needs an API key: set the AZURE_OPENAI_API_KEY "
                    "environment variable or `model.api_key` in agent.yaml"
                )
            from semantic_kernel.connectors.ai.open_ai.const import DEFAULT_AZURE_API_VERSION

            api_version = (
                model.api_version
                or env.get("AZURE_OPENAI_API_VERSION")
                or DEFAULT_AZURE_API_VERSION
            )
            assert model.endpoint is not None  # the schema requires it for azure_openai
            return AsyncAzureOpenAI(
                api_key=key,
                azure_endpoint=model.endpoint,
                azure_deployment=model.name,
                api_version=api_version or DEFAULT_AZURE_API_VERSION,
                **options,
            )
        if provider is Provider.OLLAMA:
            base = (model.endpoint or ollama_host(env) or OLLAMA_DEFAULT_ENDPOINT).rstrip("/")
            if not base.endswith("/v1"):
                base += "/v1"  # Ollama's OpenAI-compatible API
            key = _secret(model) or OLLAMA_PLACEHOLDER_KEY
            return AsyncOpenAI(api_key=key, base_url=base, **options)
    except OpenAIError as error:
        raise BackendInitError(f"provider {provider.value}: {error}") from error
    raise BackendInitError(f"provider {provider.value} does not run on Semantic Kernel")


def _make_service(model: LLMProvider, client: AsyncOpenAI) -> OpenAIChatCompletionBase:
    from openai import AsyncAzureOpenAI
    from semantic_kernel.connectors.ai.open_ai import AzureChatCompletion, OpenAIChatCompletion
    from semantic_kernel.exceptions import ServiceInitializationError

    try:
        if isinstance(client, AsyncAzureOpenAI):
            return AzureChatCompletion(
                service_id="agent", deployment_name=model.name, async_client=client
            )
        return OpenAIChatCompletion(service_id="agent", ai_model_id=model.name, async_client=client)
    except ServiceInitializationError as error:
        raise BackendInitError(f"provider {model.provider.value}: {error}") from error


# --------------------------------------------------------------------------- function tools


def _kernel_function(tool: LoadedTool) -> KernelFunction:
    """The tool as a kernel function: its YAML name and description, parameter names and types
    from the Python signature, the YAML `parameters:` schema merged over the inferred one."""
    from semantic_kernel.functions import KernelFunctionFromMethod, kernel_function
    from semantic_kernel.functions.kernel_parameter_metadata import KernelParameterMetadata

    wrapper = _recording_wrapper(tool.function)
    try:
        kernel_function(wrapper, name=tool.name, description=tool.description or tool.docstring)
        parameters = [
            _with_yaml_schema(KernelParameterMetadata(**spec), tool.parameters)
            for spec in wrapper.__kernel_function_parameters__  # type: ignore[attr-defined]
        ]
        return KernelFunctionFromMethod(wrapper, plugin_name=PLUGIN_NAME, parameters=parameters)
    except Exception as error:
        raise BackendInitError(
            f"tool {tool.name!r}: cannot expose {getattr(tool.function, '__name__', tool.name)}"
            f"{tool.signature} to Semantic Kernel: {type(error).__name__}: {error}"
        ) from error


def _with_yaml_schema(
    parameter: Any, yaml_parameters: dict[str, dict[str, Any]] | None
) -> Any:  # KernelParameterMetadata -> KernelParameterMetadata
    declared = (yaml_parameters or {}).get(parameter.name)
    if not declared:
        return parameter
    schema = {key: value for key, value in declared.items() if key != "required"}
    update: dict[str, Any] = {"schema_data": {**(parameter.schema_data or {}), **schema}}
    if isinstance(declared.get("description"), str):
        update["description"] = declared["description"]
    if isinstance(declared.get("required"), bool):
        update["is_required"] = declared["required"]
    return parameter.model_copy(update=update)


def _recording_wrapper(function: Callable[..., Any]) -> Callable[..., Any]:
    """Call the tool, noting its raw result, duration and exception in the current call record;
    the exception is re-raised so SK reports it to the model as usual."""

    def finish(record: _CallRecord | None, started: float) -> None:
        if record is not None:
            record.ran = True
            record.duration_ms = int((time.perf_counter() - started) * 1000)

    def fail(record: _CallRecord | None, error: Exception) -> None:
        if record is not None:
            record.error = f"{type(error).__name__}: {error}"

    if inspect.iscoroutinefunction(function):

        async def call_async(**kwargs: Any) -> Any:
            record, started = _current_call.get(), time.perf_counter()
            try:
                value = await function(**kwargs)
            except Exception as error:
                fail(record, error)
                raise
            finally:
                finish(record, started)
            if record is not None:
                record.result = value
            return value

        wrapper: Callable[..., Any] = call_async
    else:

        def call(**kwargs: Any) -> Any:
            record, started = _current_call.get(), time.perf_counter()
            try:
                value = function(**kwargs)
            except Exception as error:
                fail(record, error)
                raise
            finally:
                finish(record, started)
            if record is not None:
                record.result = value
            return value

        wrapper = call
    # __wrapped__ makes inspect.signature (and so SK) see the tool's own parameters.
    functools.update_wrapper(wrapper, function)
    return wrapper


# --------------------------------------------------------------------------- MCP tools

#: Background clean-ups of sessions abandoned while their servers were starting.
_cleanups: set[asyncio.Task[None]] = set()


class _McpPlugin(Protocol):
    """What this module uses of the plugin `_plugin_class()` makes (an SK MCPStdioPlugin)."""

    name: str
    server: StdioServer
    failure: Exception | None
    errlog: TextIO

    async def connect(self) -> None: ...

    async def close(self) -> None: ...

    def stderr_tail(self) -> str: ...


def _mcp_servers(agent: Agent, env: Mapping[str, str], agent_dir: Path | None) -> list[StdioServer]:
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
def _plugin_class() -> Callable[[StdioServer], _McpPlugin]:
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
            record, started = _current_call.get(), time.perf_counter()
            try:
                result = await self.session.call_tool(tool_name, arguments=kwargs)
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


def _mcp_text(content: Sequence[Any]) -> str:
    """What an MCP tool returned, as text: its text blocks joined, other blocks by type."""
    parts: list[str] = []
    for block in content:
        text = getattr(block, "text", None)
        parts.append(text if isinstance(text, str) else f"[{getattr(block, 'type', 'content')}]")
    return "\n".join(parts)


async def _open_plugins(servers: Sequence[StdioServer]) -> list[_McpPlugin]:
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
        await _close_plugins(plugins)
        raise
    return plugins


async def _connect_all(plugins: Sequence[_McpPlugin]) -> None:
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


async def _close_after(connecting: asyncio.Future[None], plugins: Sequence[_McpPlugin]) -> None:
    with contextlib.suppress(BaseException):
        await connecting
    await _close_plugins(plugins)


async def _close_plugins(plugins: Sequence[_McpPlugin]) -> None:
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


# --------------------------------------------------------------------------- messages


def _user_message(message: str, files: Sequence[TurnFile]) -> ChatMessageContent:
    """The turn's text, then each text file as its own text block, images as image parts."""
    from semantic_kernel.contents import (
        AuthorRole,
        ChatMessageContent,
        ImageContent,
        TextContent,
    )

    items: list[Any] = [TextContent(text=message)]
    for file in files:
        label = f"File {file.path.name}" + (f" ({file.description})" if file.description else "")
        if file.kind == "image" and file.data is not None:
            items.append(TextContent(text=f"{label}:"))
            items.append(
                ImageContent(data=file.data, data_format="base64", mime_type=file.media_type)
            )
        else:
            items.append(TextContent(text=f"{label}:\n{file.text or ''}"))
    return ChatMessageContent(role=AuthorRole.USER, items=items)


def _text_of(message: ChatMessageContent) -> str:
    from semantic_kernel.contents import TextContent

    return "".join(item.text for item in message.items if isinstance(item, TextContent))


def _invocations(
    turn: Sequence[ChatMessageContent], calls: Mapping[str, _CallRecord]
) -> list[ToolInvocation]:
    """Every call the model made this turn, in order, with what the tool did.

    A call SK refused to run (unknown tool, missing or malformed arguments) has no result and
    carries SK's reason, which the model was sent, as its error."""
    from semantic_kernel.contents import FunctionCallContent, FunctionResultContent

    requested: list[FunctionCallContent] = []
    answers: dict[str, Any] = {}
    for message in turn:
        for item in message.items:
            if isinstance(item, FunctionCallContent):
                requested.append(item)
            elif isinstance(item, FunctionResultContent) and item.id is not None:
                answers[item.id] = item.result
    invocations: list[ToolInvocation] = []
    for call in requested:
        args, args_error = _arguments(call.arguments)
        record = calls.get(call.id or "")
        if record is not None and record.ran:
            invocations.append(
                ToolInvocation(
                    name=call.name or "",
                    args=args,
                    result=json_safe(record.result),
                    duration_ms=record.duration_ms,
                    error=record.error,
                )
            )
        else:
            reason = answers.get(call.id or "")
            invocations.append(
                ToolInvocation(
                    name=call.name or "",
                    args=args,
                    error=args_error or (f"not run: {reason}" if reason else "not run"),
                )
            )
    return invocations


def _arguments(raw: str | Mapping[str, Any] | None) -> tuple[dict[str, Any], str | None]:
    if raw is None or raw == "":
        return {}, None
    if isinstance(raw, Mapping):
        return dict(raw), None
    try:
        parsed = json.loads(raw)
    except ValueError as error:
        return {}, f"malformed arguments {raw!r}: {error}"
    if not isinstance(parsed, dict):
        return {}, f"arguments are not a JSON object: {raw!r}"
    return parsed, None


def _usage(messages: Sequence[ChatMessageContent]) -> TokenUsage | None:
    """Sum of the `usage` metadata of every model response in the turn (None if none had it)."""
    total: TokenUsage | None = None
    for message in messages:
        usage = message.metadata.get("usage") if message.metadata else None
        if usage is None:
            continue
        prompt = int(getattr(usage, "prompt_tokens", None) or 0)
        completion = int(getattr(usage, "completion_tokens", None) or 0)
        details = getattr(usage, "prompt_tokens_details", None)
        cached = int(getattr(details, "cached_tokens", None) or 0)
        part = TokenUsage(
            prompt_tokens=prompt,
            completion_tokens=completion,
            total_tokens=prompt + completion,
            cache_read_tokens=cached,
        )
        total = part if total is None else total + part
    return total


# --------------------------------------------------------------------------- errors

_E = TypeVar("_E", bound=BaseException)


def _session_error(error: Exception, where: str) -> BackendError:
    """An SK/HTTP failure as the backend error the executor understands.

    Timeouts -> BackendTimeoutError. HTTP 401/403/404 (key, permission, model or deployment
    name) -> not recoverable: every later turn would fail the same way. Everything else (429,
    5xx, connection errors, 400 for this turn's content) -> recoverable; the half turn was
    dropped from the history, so the conversation stays well formed."""
    if isinstance(error, BackendError):
        return error
    import openai

    cause = _find_cause(error, openai.APIError)
    if isinstance(cause, openai.APITimeoutError):
        return BackendTimeoutError(f"{where}: request timed out")
    if isinstance(cause, openai.APIStatusError):
        status = cause.status_code
        hint = ""
        if status in (401, 403):
            hint = " (check the API key: `model.api_key` or the provider's environment variable)"
        elif status == 404:
            hint = " (check `model.name` and `model.endpoint`)"
        return BackendSessionError(
            f"{where}: HTTP {status}: {cause.message}{hint}",
            recoverable=status not in _FATAL_STATUSES,
        )
    if isinstance(cause, openai.APIConnectionError):
        return BackendSessionError(f"{where}: connection failed: {cause}", recoverable=True)
    return BackendSessionError(f"{where}: {type(error).__name__}: {error}", recoverable=True)


def _find_cause(error: BaseException, kind: type[_E]) -> _E | None:
    seen: set[int] = set()
    current: BaseException | None = error
    while current is not None and id(current) not in seen:
        if isinstance(current, kind):
            return current
        seen.add(id(current))
        current = current.__cause__ or current.__context__
    return None
