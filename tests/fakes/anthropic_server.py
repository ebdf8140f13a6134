"""A fake Anthropic Messages API on 127.0.0.1, scripted per test.

The real Claude Code CLI (bundled with claude-agent-sdk) talks to it through
`ANTHROPIC_BASE_URL`. Each `POST /v1/messages` of the conversation takes the next scripted step
off the queue — a tool-use turn, a final text answer, or an HTTP error — and answers it as SSE
(`stream: true`, what the CLI uses) or as one JSON message. Every request is recorded, so tests
can check that a tool result was sent back and that turn 2 carried turn 1's context.

Requests that are not part of the conversation (token counting, the CLI's small background
calls without tools, model listing, telemetry) are logged and answered without consuming the
script, so the CLI proceeds.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
import logging
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes import loopback_http
from tests.fakes.faults import DROP, FaultPlan, drop, request_key
from tests.fakes.loopback_http import LoopbackHTTPServer, read_request

log = logging.getLogger(__name__)

_ids = itertools.count(1)


@dataclass(frozen=True)
class Usage:
    input_tokens: int = 10
    output_tokens: int = 5
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0

    def as_dict(self) -> dict[str, int]:
        return {
            "input_tokens": self.input_tokens,
            "output_tokens": self.output_tokens,
            "cache_creation_input_tokens": self.cache_creation_input_tokens,
            "cache_read_input_tokens": self.cache_read_input_tokens,
        }


@dataclass(frozen=True)
class ToolUse:
    """One `tool_use` block; `name` is the name the model calls (e.g. `mcp__tools__subtract`)."""

    name: str
    input: dict[str, Any]
    id: str = field(default_factory=lambda: f"toolu_{next(_ids):04d}")
    #: Sent as the streamed `partial_json` instead of `input` (a model's malformed JSON).
    raw_input: str | None = None


@dataclass(frozen=True)
class Reply:
    """One assistant message: optional text, then tool calls (stop_reason tool_use) or not."""

    text: str | None = None
    tool_uses: Sequence[ToolUse] = ()
    usage: Usage = Usage()
    #: Seconds to wait before answering (to exercise timeouts).
    delay: float = 0.0

    @property
    def stop_reason(self) -> str:
        return "tool_use" if self.tool_uses else "end_turn"


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error answer; `times` consecutive conversation requests get it (so the CLI's
    retries see the same failure)."""

    status: int = 500
    message: str = "fake server error"
    error_type: str = "api_error"
    times: int = 1


Step = Reply | ErrorReply


@dataclass
class RecordedRequest(loopback_http.RecordedRequest):
    #: The agent's conversation, not one of the CLI's side calls.
    conversation: bool = False


def _is_conversation(body: Any) -> bool:
    """Every Messages call is the agent's conversation except the CLI's one-token probes
    (quota / reachability checks), which must not consume the script."""
    return isinstance(body, dict) and int(body.get("max_tokens") or 2) > 1


class FakeAnthropicServer(LoopbackHTTPServer):
    """`async with FakeAnthropicServer() as server:` → `server.base_url`, `server.script(...)`."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[RecordedRequest] = []
        self._steps: list[Step] = []
        self._repeats_left = 0
        self._stopping = asyncio.Event()
        #: Provider weather (faults.py), applied to conversation requests before the script.
        self.faults: FaultPlan | None = None
        #: Conversation requests being answered now (a stream counts until its last event),
        #: and the most there ever were at once: what a client's limiter let through.
        self.in_flight = 0
        self.most_in_flight = 0
        #: Answers from the request itself instead of the script (a model that keeps calling
        #: tools for as long as it is asked): body -> reply.
        self.responder: Callable[[dict[str, Any]], Step] | None = None

    # -- scripting ---------------------------------------------------------------------------
    def script(self, *steps: Step) -> None:
        """Queue answers for the next conversation requests, in order."""
        self._steps.extend(steps)

    @property
    def pending(self) -> int:
        return len(self._steps)

    @property
    def conversation_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.conversation]

    def routes(self, app: web.Application) -> None:
        app.router.add_post("/v1/messages", self._messages)
        app.router.add_post("/v1/messages/count_tokens", self._count_tokens)
        app.router.add_route("*", "/{tail:.*}", self._unknown)

    async def stop(self) -> None:
        self._stopping.set()  # ends the streams still open
        await super().stop()

    # -- handlers ----------------------------------------------------------------------------
    async def _record(self, request: web.Request) -> RecordedRequest:
        method, path, headers, body = await read_request(request)
        recorded = RecordedRequest(method, path, headers, body)
        self.requests.append(recorded)
        return recorded

    async def _unknown(self, request: web.Request) -> web.StreamResponse:
        recorded = await self._record(request)
        log.info("fake anthropic: unscripted %s %s", recorded.method, recorded.path)
        if request.method == "GET" and request.path.startswith("/v1/models"):
            return web.json_response({"data": [], "has_more": False})
        if request.method == "POST":
            return web.json_response({})
        return web.json_response(
            {"type": "error", "error": {"type": "not_found_error", "message": "not faked"}},
            status=404,
        )

    async def _count_tokens(self, request: web.Request) -> web.StreamResponse:
        await self._record(request)
        return web.json_response({"input_tokens": 10})

    def _next_step(self, body: dict[str, Any]) -> Step:
        if self._repeats_left > 0 and self._steps:
            self._repeats_left -= 1
            step = self._steps[0]
            if self._repeats_left == 0:
                self._steps.pop(0)
            return step
        if not self._steps:
            return Reply(text="(fake server: script exhausted)")
        step = self._steps[0]
        if isinstance(step, ErrorReply) and step.times > 1:
            self._repeats_left = step.times - 1
            return step
        return self._steps.pop(0)

    async def _messages(self, request: web.Request) -> web.StreamResponse:
        recorded = await self._record(request)
        body = recorded.body if isinstance(recorded.body, dict) else {}
        if not _is_conversation(body):
            return await self._answer(request, body, conversation=False)
        recorded.conversation = True
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return await self._answer(request, body, conversation=True)
        finally:
            self.in_flight -= 1

    async def _answer(
        self, request: web.Request, body: dict[str, Any], *, conversation: bool
    ) -> web.StreamResponse:
        model = str(body.get("model", "claude-fake"))
        if conversation:
            if self.faults is not None:
                fault = await self.faults.before(request_key(body))
                if fault == DROP:
                    return drop(request)
                if isinstance(fault, web.Response):
                    return fault
            step = self.responder(body) if self.responder is not None else self._next_step(body)
        else:
            # A side call of the CLI: answer briefly, leave the script alone.
            step = Reply(text="ok", usage=Usage(input_tokens=1, output_tokens=1))
        if isinstance(step, ErrorReply):
            return web.json_response(
                {"type": "error", "error": {"type": step.error_type, "message": step.message}},
                status=step.status,
            )
        if step.delay:
            # Cut short when the server stops, so teardown does not wait for it.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), step.delay)
        if body.get("stream"):
            return await self._stream(request, step, model)
        return web.json_response(_message_json(step, model))

    async def _stream(self, request: web.Request, reply: Reply, model: str) -> web.StreamResponse:
        response = web.StreamResponse(
            status=200, headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"}
        )
        await response.prepare(request)
        async for event, data in _sse_events(reply, model):
            chunk = f"event: {event}\ndata: {json.dumps(data)}\n\n"
            await response.write(chunk.encode())
        await response.write_eof()
        return response


def _message_json(reply: Reply, model: str) -> dict[str, Any]:
    content: list[dict[str, Any]] = []
    if reply.text is not None:
        content.append({"type": "text", "text": reply.text})
    for use in reply.tool_uses:
        content.append({"type": "tool_use", "id": use.id, "name": use.name, "input": use.input})
    return {
        "id": f"msg_{next(_ids):06d}",
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": content,
        "stop_reason": reply.stop_reason,
        "stop_sequence": None,
        "usage": reply.usage.as_dict(),
    }


async def _sse_events(reply: Reply, model: str) -> AsyncIterator[tuple[str, dict[str, Any]]]:
    start_usage = {**reply.usage.as_dict(), "output_tokens": 1}
    message = {**_message_json(reply, model), "content": [], "stop_reason": None}
    message["usage"] = start_usage
    yield "message_start", {"type": "message_start", "message": message}
    yield "ping", {"type": "ping"}
    index = 0
    if reply.text is not None:
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "text", "text": ""},
            },
        )
        # Two deltas, so the client really has to join them.
        half = len(reply.text) // 2
        for piece in (reply.text[:half], reply.text[half:]):
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "text_delta", "text": piece},
                },
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
        index += 1
    for use in reply.tool_uses:
        yield (
            "content_block_start",
            {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": use.id, "name": use.name, "input": {}},
            },
        )
        arguments = use.raw_input if use.raw_input is not None else json.dumps(use.input)
        half = len(arguments) // 2
        for piece in (arguments[:half], arguments[half:]):
            yield (
                "content_block_delta",
                {
                    "type": "content_block_delta",
                    "index": index,
                    "delta": {"type": "input_json_delta", "partial_json": piece},
                },
            )
        yield "content_block_stop", {"type": "content_block_stop", "index": index}
        index += 1
        await asyncio.sleep(0)
    yield (
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": reply.stop_reason, "stop_sequence": None},
            "usage": reply.usage.as_dict(),
        },
    )
    yield "message_stop", {"type": "message_stop"}
