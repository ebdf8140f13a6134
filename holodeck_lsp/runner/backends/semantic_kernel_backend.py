"""openai, azure_openai and ollama agents on Semantic Kernel (extra `sk`).

One backend per agent holds the chat service (one HTTP client) and the agent's function tools
as kernel functions; each session gets its own Kernel and ChatHistory, so sessions never see
each other's turns or tool calls and can run concurrently.

The pieces live in `backends/sk/`: the OpenAI client and its errors (`openai_client`), the
function tools (`kernel_functions`), the MCP tools (`mcp_plugins`) and the conversion of a
turn's messages (`messages`).

How a turn is captured: SK's auto function calling appends the model's tool-call messages and
the tool results to the session's ChatHistory while it loops, so after a send the messages
added since the user message are exactly this turn's calls, in the model's order. Each call's
raw return value, duration and exception come from a wrapper around the tool function, tied to
the call id by an auto-function-invocation filter (through a ContextVar: SK runs each call of
one model response in its own task). Token usage is summed over every model response of the
turn — the tool-call responses stay in the history with their `usage` metadata.

MCP tools (`type: mcp`, `transport: stdio`): each session starts its own servers, one kernel
plugin per tool, closed with the session (see `sk/mcp_plugins.py`).

Semantic Kernel and openai are imported only inside functions: importing this module is cheap.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from holodeck_lsp.runner.agent_code.function_tools import LoadedTool
from holodeck_lsp.runner.backends.base import (
    BackendInitError,
    BackendSessionError,
    SendResult,
    TurnFile,
)
from holodeck_lsp.runner.backends.instructions import read_instructions
from holodeck_lsp.runner.backends.sk.kernel_functions import (
    PLUGIN_NAME,
    CallRecord,
    as_kernel_function,
    current_call,
)
from holodeck_lsp.runner.backends.sk.mcp_plugins import (
    McpPlugin,
    close_plugins,
    open_plugins,
    plugin_servers,
)
from holodeck_lsp.runner.backends.sk.messages import invocations, text_of, usage, user_message
from holodeck_lsp.runner.backends.sk.openai_client import (
    http_timeout,
    make_client,
    make_service,
    read_timeout,
    session_error,
)
from holodeck_lsp.runner.backends.sk.plain_body import send_plain_bodies
from holodeck_lsp.runner.limits.budget import turn_budget
from holodeck_lsp.runner.limits.registry import settings
from holodeck_lsp.schema.agent import Agent

if TYPE_CHECKING:
    from semantic_kernel import Kernel
    from semantic_kernel.connectors.ai.open_ai.services.open_ai_chat_completion_base import (
        OpenAIChatCompletionBase,
    )
    from semantic_kernel.connectors.ai.prompt_execution_settings import PromptExecutionSettings
    from semantic_kernel.contents import ChatHistory
    from semantic_kernel.filters import AutoFunctionInvocationContext


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
        max_retries: int | None = None,
    ) -> None:
        """Build the chat service and kernel functions; BackendInitError says what to fix.

        `agent_dir` resolves `instructions.file` (default: the current directory).
        `max_retries` is each turn's retry budget for 429/5xx/connection errors (default: the
        run's, runner/limits/registry.py).
        """
        try:
            import semantic_kernel  # noqa: F401
        except ImportError as error:  # this module imports fine without it: check here
            raise BackendInitError(
                f"provider {agent.model.provider.value} needs the `sk` extra: "
                f"pip install 'holodeck-lsp[sk]' ({error})"
            ) from error
        self.agent = agent
        self.instructions = read_instructions(agent, agent_dir)
        # Before the HTTP client: nothing to release when a server cannot be used.
        self._mcp_servers = plugin_servers(agent, env, agent_dir)
        llm_timeout = agent.execution.llm_timeout if agent.execution else None
        self._llm_timeout = llm_timeout
        self._client = make_client(
            agent.model,
            env,
            max_retries=max_retries,
            # With `llm_timeout` an HTTP timeout is the case's verdict; without, the client's
            # own (HOLODECK_HTTP_TIMEOUT or openai's) ends a call the provider never answers.
            timeout=llm_timeout if llm_timeout is not None else http_timeout(env),
        )
        self._retry_budget = max_retries if max_retries is not None else settings().retry_budget
        send_plain_bodies(self._client)  # a quarter of a run's CPU otherwise (plain_body.py)
        self._service = make_service(agent.model, self._client)
        self._functions = [as_kernel_function(tool) for tool in tools]
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
        plugins = await open_plugins(self._mcp_servers)
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
            retry_budget=self._retry_budget,
            llm_timeout=self._llm_timeout,
            http_timeout=read_timeout(self._client),
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
                # Semantic Kernel's default stops offering tools after 5 rounds: a turn that
                # needs 6 or 7 calls in a row (BFCL's) was cut short. 20 is `max_tool_rounds`'
                # default, BFCL's own step limit (docs/importing-bfcl.md, issue 36).
                FunctionChoiceBehavior.Auto(maximum_auto_invoke_attempts=20)
                if self._functions or self._mcp_servers
                else None
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
        plugins: Sequence[McpPlugin] = (),
        on_close: Callable[[SemanticKernelSession], None] | None = None,
        retry_budget: int = 0,
        llm_timeout: float | None = None,
        http_timeout: float | None = None,
    ) -> None:
        self.kernel = kernel
        self._retry_budget = retry_budget
        self._llm_timeout = llm_timeout
        self._http_timeout = http_timeout
        self.history = history
        self._settings = settings
        self._service = service
        self._describe = describe
        self._plugins = list(plugins)
        self._on_close = on_close
        self._calls: dict[str, CallRecord] = {}
        self._closed = False

    async def send(self, message: str, files: Sequence[TurnFile] = ()) -> SendResult:
        if self._closed:
            raise BackendSessionError("the session is closed", recoverable=False)
        start = len(self.history.messages)
        self.history.add_message(user_message(message, files))
        self._calls = {}
        try:
            with turn_budget(self._retry_budget):  # every request of the turn draws on it
                answer = await self._service.get_chat_message_content(
                    self.history, self._settings, kernel=self.kernel
                )
            if answer is None:  # SK raises before this happens; kept for the type
                raise BackendSessionError(f"{self._describe()} returned no answer")
        except BaseException as error:
            # Drop the half turn, so a later turn sends a well-formed history.
            del self.history.messages[start:]
            if isinstance(error, Exception):
                raise session_error(
                    error,
                    self._describe(),
                    llm_timeout=self._llm_timeout,
                    http_timeout=self._http_timeout,
                ) from error
            raise  # cancellation (e.g. the executor's timeout) goes through unchanged
        turn = self.history.messages[start + 1 :]
        self.history.add_message(answer)
        return SendResult(
            response=text_of(answer),
            tool_invocations=tuple(invocations(turn, self._calls)),
            token_usage=usage([*turn, answer]),
        )

    async def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        if self._on_close is not None:
            self._on_close(self)
        plugins, self._plugins = self._plugins, []
        await close_plugins(plugins)

    async def _invocation_filter(
        self,
        context: AutoFunctionInvocationContext,
        next: Callable[[AutoFunctionInvocationContext], Awaitable[None]],  # SK passes it as `next=`
    ) -> None:
        """Give the tool wrapper a record for this call id (SK runs each call in its own task)."""
        record = CallRecord()
        call = context.function_call_content
        if call is not None and call.id is not None:
            self._calls[call.id] = record
        token = current_call.set(record)
        try:
            await next(context)
        finally:
            current_call.reset(token)
