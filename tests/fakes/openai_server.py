"""A fake OpenAI-compatible chat-completions API on 127.0.0.1, scripted per test.

Serves `POST …/chat/completions` under any prefix, so one server stands in for OpenAI
(`/v1/chat/completions`), Ollama's OpenAI-compatible API (`/v1/chat/completions`) and Azure
OpenAI (`/openai/deployments/<name>/chat/completions?api-version=…`). Each request takes the
next scripted step — a tool-call turn, a final answer, or an HTTP error — and every request is
recorded (path, headers, JSON body: messages, tools offered), so tests can assert on what the
client sent.

Semantic Kernel's `get_chat_message_content` sends `stream: false`; streaming requests are
refused with a 400 so a change in the client shows up as a failing test, not a hang.
"""

from __future__ import annotations

import asyncio
import itertools
import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from aiohttp import web

from tests.fakes import loopback_http
from tests.fakes.faults import DROP, FaultPlan, drop, request_key
from tests.fakes.loopback_http import LoopbackHTTPServer, read_request

_ids = itertools.count(1)


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int = 10
    completion_tokens: int = 5
    cached_tokens: int = 0

    def as_dict(self) -> dict[str, Any]:
        usage: dict[str, Any] = {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "total_tokens": self.prompt_tokens + self.completion_tokens,
        }
        if self.cached_tokens:
            usage["prompt_tokens_details"] = {"cached_tokens": self.cached_tokens}
        return usage


@dataclass(frozen=True)
class ToolCall:
    """One entry of `message.tool_calls`; `name` is what the model calls (e.g. `tools-subtract`).
    `arguments` may be a mapping (sent as JSON) or raw text (to send malformed JSON)."""

    name: str
    arguments: Mapping[str, Any] | str
    id: str = field(default_factory=lambda: f"call_{next(_ids):04d}")

    def as_dict(self) -> dict[str, Any]:
        arguments = (
            self.arguments if isinstance(self.arguments, str) else json.dumps(self.arguments)
        )
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": arguments},
        }


@dataclass(frozen=True)
class Reply:
    """One assistant message: optional text and tool calls (finish_reason tool_calls) or not."""

    text: str | None = None
    tool_calls: Sequence[ToolCall] = ()
    usage: Usage | None = field(default_factory=Usage)
    #: Seconds to wait before answering (to exercise client timeouts).
    delay: float = 0.0

    @property
    def finish_reason(self) -> str:
        return "tool_calls" if self.tool_calls else "stop"


@dataclass(frozen=True)
class ErrorReply:
    """An HTTP error answer, given to `times` consecutive requests (so client retries see it)."""

    status: int = 500
    message: str = "fake server error"
    error_type: str = "server_error"
    times: int = 1


Step = Reply | ErrorReply


@dataclass
class RecordedRequest(loopback_http.RecordedRequest):
    """A chat request as it arrived (`path` with the query string)."""

    @property
    def messages(self) -> list[dict[str, Any]]:
        if isinstance(self.body, dict):
            return list(self.body.get("messages") or [])
        return []

    @property
    def tools(self) -> list[dict[str, Any]]:
        if isinstance(self.body, dict):
            return list(self.body.get("tools") or [])
        return []

    @property
    def tool_names(self) -> list[str]:
        return [tool["function"]["name"] for tool in self.tools]


class FakeOpenAIServer(LoopbackHTTPServer):
    """`async with FakeOpenAIServer() as server:` → `server.base_url`, `server.script(...)`."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[RecordedRequest] = []
        self._steps: list[Step] = []
        #: Provider weather (faults.py), applied before the script.
        self.faults: FaultPlan | None = None
        #: Answers from the request itself instead of the script (load tests, where the
        #: order requests arrive in is not known): body -> reply.
        self.responder: Callable[[dict[str, Any]], Step] | None = None

    # -- scripting ---------------------------------------------------------------------------
    def script(self, *steps: Step) -> None:
        """Queue answers for the next chat requests, in order."""
        self._steps.extend(steps)

    def fail_next(self, status: int = 500, *, times: int = 1, message: str | None = None) -> None:
        """Answer the next `times` chat requests with HTTP `status`, before anything scripted."""
        error_type = "server_error" if status >= 500 else "invalid_request_error"
        reply = ErrorReply(
            status=status,
            message=message or f"fake server: HTTP {status}",
            error_type=error_type,
            times=times,
        )
        self._steps.insert(0, reply)

    @property
    def pending(self) -> int:
        return len(self._steps)

    @property
    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.split("?")[0].endswith("/chat/completions")]

    def routes(self, app: web.Application) -> None:
        app.router.add_route("*", "/{tail:.*}", self._handle)

    # -- handlers ----------------------------------------------------------------------------
    async def _handle(self, request: web.Request) -> web.StreamResponse:
        method, path, headers, body = await read_request(request)
        self.requests.append(RecordedRequest(method, path, headers, body))
        if request.method != "POST" or not request.path.endswith("/chat/completions"):
            return _error(404, f"fake server: no route {request.method} {request.path}")
        if not isinstance(body, dict):
            return _error(400, "fake server: the body is not a JSON object")
        if body.get("stream"):
            return _error(400, "fake server: stream=true is not supported")
        if self.faults is not None:
            fault = await self.faults.before(request_key(body))
            if fault == DROP:
                return drop(request)
            if isinstance(fault, web.Response):
                return fault
        step = self.responder(body) if self.responder is not None else self._next_step()
        if isinstance(step, ErrorReply):
            return _error(step.status, step.message, step.error_type)
        if step.delay:
            await asyncio.sleep(step.delay)
        return web.json_response(_completion(step, str(body.get("model", "fake-model"))))

    def _next_step(self) -> Step:
        if not self._steps:
            return Reply(text="(fake server: script exhausted)")
        step = self._steps[0]
        if isinstance(step, ErrorReply) and step.times > 1:
            self._steps[0] = ErrorReply(step.status, step.message, step.error_type, step.times - 1)
            return step
        return self._steps.pop(0)


def _error(status: int, message: str, error_type: str = "invalid_request_error") -> web.Response:
    return web.json_response(
        {"error": {"message": message, "type": error_type, "param": None, "code": None}},
        status=status,
    )


def _completion(reply: Reply, model: str) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.tool_calls:
        message["tool_calls"] = [call.as_dict() for call in reply.tool_calls]
    completion: dict[str, Any] = {
        "id": f"chatcmpl-{next(_ids):06d}",
        "object": "chat.completion",
        "created": 1_700_000_000,
        "model": model,
        "system_fingerprint": "fp_fake",
        "choices": [
            {
                "index": 0,
                "message": message,
                "logprobs": None,
                "finish_reason": reply.finish_reason,
            }
        ],
    }
    if reply.usage is not None:
        completion["usage"] = reply.usage.as_dict()
    return completion
