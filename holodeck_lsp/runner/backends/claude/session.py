"""One conversation with the Claude Code CLI (`ClaudeSession`): one CLI process per test case,
one `query()` per turn, read up to the turn's `ResultMessage` so turn N+1 sees turn N. A turn
abandoned by a timeout is interrupted and drained before the next send; a CLI that died makes
the session dead (its later turns are skipped). Made by `claude_backend.ClaudeBackend`;
`claude_agent_sdk` is imported only inside functions.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from holodeck_lsp.runner.backends.base import BackendSessionError, SendResult, TurnFile
from holodeck_lsp.runner.backends.claude.messages import stderr_tail, usage, with_files
from holodeck_lsp.runner.backends.claude.provider_errors import turn_error
from holodeck_lsp.runner.backends.claude.relay import RelaySlot
from holodeck_lsp.runner.backends.claude.tool_calls import (
    PendingCall,
    finished_call,
    pending_call,
    unfinished_call,
)
from holodeck_lsp.runner.backends.claude.tool_server import ToolLog

if TYPE_CHECKING:
    from claude_agent_sdk import ClaudeSDKClient

#: How long the next send waits for an abandoned (timed-out) turn to stop.
_SETTLE_SECONDS = 30.0


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
