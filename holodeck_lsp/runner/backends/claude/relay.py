"""The loopback limiting relay between the Claude Code CLI and the Anthropic API.

The CLI makes its Messages API calls itself, from its own process: nothing in the SDK lets
this process see them. So the CLI is given `ANTHROPIC_BASE_URL=http://127.0.0.1:<port>/s/<id>`
and every call it makes arrives here, where it goes to the real endpoint through what the
Semantic Kernel backend and the judges use (runner/limits/): the endpoint's limiter
(`limiter_for(endpoint, "anthropic:<model>")`, shared with the judges of that model — AIMD
window, pacing, `rpm`/`tpm`, pauses) and `Retrying` (backoff honouring `Retry-After`,
`retry-after-ms`, the rate-limit headers) within the retry budget of the turn. The CLI runs
with `CLAUDE_CODE_MAX_RETRIES=0`, so these are the only retries.

`<id>` names the session (one CLI process): a turn's requests draw on that session's budget
for the turn (`RelaySlot.turn`). The prefix is stripped before forwarding; a request without a
known id is refused, so the port is no open proxy for other local processes. The API key
travels in the CLI's headers, forwarded as they are and never logged.

An answer that is not a refusal (2xx, 4xx other than 408/409/429) is relayed byte for byte as
it streams (the upstream is asked for an uncompressed body, so the bytes are the same); it
keeps its place in the window until its last byte. When the budget is spent the provider's
last refusal (status, headers, body) is relayed, so the CLI reports `API Error: 429 …` and the
turn is errored; an endpoint that cannot be reached at all is answered 502 with a message
provider_errors.py reads as a connection error.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import secrets
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import httpx

from holodeck_lsp.runner import trace_hooks as tracing
from holodeck_lsp.runner.backends.claude.provider_errors import UNREACHABLE
from holodeck_lsp.runner.backends.claude.relay_http import (
    IncomingRequest,
    ResponseWriter,
    serve_connection,
)
from holodeck_lsp.runner.backends.claude.relay_usage import AnswerUsage
from holodeck_lsp.runner.limits.budget import RetryBudget, drawing_on
from holodeck_lsp.runner.limits.env_proxy import env_proxy_transport
from holodeck_lsp.runner.limits.registry import limiter_for, settings
from holodeck_lsp.runner.limits.transport import Retrying
from holodeck_lsp.runner.limits.weather import TurnWeather, reporting_to, watched_weather

#: Per connection, not per request: they are the CLI's and httpx's business, not the peer's.
_HOP_BY_HOP = frozenset(
    {
        "connection",
        "keep-alive",
        "proxy-connection",
        "proxy-authorization",
        "te",
        "trailer",
        "transfer-encoding",
        "upgrade",
        "host",
        "content-length",
        "accept-encoding",
    }
)
#: No read timeout: a long answer (extended thinking) may be silent for minutes, and the CLI
#: has its own (API_TIMEOUT_MS); when it gives up it closes the connection and we stop too.
_TIMEOUT = httpx.Timeout(None, connect=30.0, write=60.0)


class RelaySlot:
    """One session's way in: its path prefix, and the retry budget of its turn."""

    def __init__(self) -> None:
        self.id = secrets.token_urlsafe(12)
        self.budget: RetryBudget | None = None
        #: The turn's weather record (weather.py), for its `llm_timeout` verdict.
        self.weather: TurnWeather | None = None
        #: The run's trace and the turn's span while a traced turn is sent (runner/trace_hooks.py).
        self.trace: Any = None

    @contextlib.contextmanager
    def turn(self, retries: int) -> Iterator[RetryBudget]:
        """Within the block, the session's requests share `retries` retries and report their
        weather to the turn's record (taken from the turn's task, which the relay is not)."""
        self.budget = RetryBudget(retries)
        self.weather = watched_weather()
        self.trace = tracing.capture()  # the turn's span, for the calls' `chat` spans
        try:
            yield self.budget
        finally:
            self.budget = None
            self.weather = None
            self.trace = None


class LimitingRelay:
    """`await relay.start()`, then `relay.base_url(relay.open_slot())` is a CLI's endpoint."""

    def __init__(self, upstream: str, model: str) -> None:
        #: The real endpoint (`model.endpoint`, ANTHROPIC_BASE_URL or the API's own).
        self.upstream = upstream.rstrip("/")
        self._model = model
        self._slots: dict[str, RelaySlot] = {}
        self._server: asyncio.Server | None = None
        self._connections: set[asyncio.Task[None]] = set()
        self._client: httpx.AsyncClient | None = None
        self._port = 0

    async def start(self) -> None:
        # The proxies of the environment, as the judges' and SK's clients route them.
        self._client = httpx.AsyncClient(
            transport=env_proxy_transport(httpx), trust_env=False, timeout=_TIMEOUT
        )
        self._server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self._port = int(self._server.sockets[0].getsockname()[1])

    def open_slot(self) -> RelaySlot:
        slot = RelaySlot()
        self._slots[slot.id] = slot
        return slot

    def close_slot(self, slot: RelaySlot) -> None:
        self._slots.pop(slot.id, None)

    def base_url(self, slot: RelaySlot) -> str:
        return f"http://127.0.0.1:{self._port}/s/{slot.id}"

    async def aclose(self) -> None:
        server, self._server = self._server, None
        if server is not None:
            server.close()
        connections = list(self._connections)
        for task in connections:
            task.cancel()
        await asyncio.gather(*connections, return_exceptions=True)
        client, self._client = self._client, None
        if client is not None:
            await client.aclose()

    # -- one connection, one request ---------------------------------------------------------
    async def _connection(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        task = asyncio.current_task()
        assert task is not None
        self._connections.add(task)
        try:
            await serve_connection(reader, writer, self._relay)
        except asyncio.CancelledError:
            # Only `aclose` cancels this task, and nothing awaits it but `aclose`: ending
            # quietly keeps asyncio's stream callback from logging the cancellation as an error.
            pass
        finally:
            self._connections.discard(task)

    async def _relay(self, request: IncomingRequest, respond: ResponseWriter) -> None:
        slot, path = self._route(request.target)
        if slot is None or self._client is None:
            await _error(respond, 404, "not_found_error", "holodeck relay: unknown session")
            return
        upstream = self._client.build_request(
            request.method,
            self.upstream + path,
            headers=[(k, v) for k, v in request.headers if k.lower() not in _HOP_BY_HOP]
            + [("accept-encoding", "identity")],
            content=request.body,
        )
        limiter = limiter_for(self.upstream, f"anthropic:{_model_of(request.body, self._model)}")
        retrying = Retrying(limiter, None, (httpx.TransportError, OSError))
        # A request outside a turn (the CLI's start-up calls) gets a budget of its own.
        budget = slot.budget or RetryBudget(settings().retry_budget)
        call = tracing.model_call(self.upstream + path, request.body, slot.trace)
        try:
            with drawing_on(budget), reporting_to(slot.weather):
                response, release = await retrying.send_held(self._attempt, upstream)
        except (httpx.TransportError, OSError) as error:
            # The budget is spent and the last attempt got no answer. No URL in the message:
            # only the kind of failure.
            if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout | OSError):
                what = UNREACHABLE
            else:
                what = "holodeck relay: the Anthropic API connection was lost"
            if call is not None:
                call.failed(error)
            await _error(respond, 502, "api_error", f"{what} ({type(error).__name__}: {error})")
            return
        counted = limiter.tokens or call is not None
        usage = AnswerUsage(response.headers.get("content-type", "")) if counted else None
        try:
            consumed = response.is_stream_consumed  # read by the retry loop (a refusal's body)
            await respond.start(response.status_code, _answer_headers(response.headers, consumed))
            if consumed:
                await respond.write(response.content)
            else:
                try:
                    async for chunk in response.aiter_raw():
                        if usage is not None:
                            usage.feed(chunk)
                        await respond.write(chunk)
                except httpx.TransportError as error:
                    # Lost mid-answer: too late to retry (the CLI has part of it). The CLI's
                    # connection is closed too, so it sees the answer cut, as it would have.
                    raise ConnectionAbortedError(type(error).__name__) from error
            await respond.end()
        finally:
            release(usage.tokens() if usage is not None else 0)
            await response.aclose()
            if call is not None and usage is not None:
                call.answered(response.status_code, None, *usage.split())

    async def _attempt(self, request: httpx.Request) -> httpx.Response:
        assert self._client is not None
        return await self._client.send(request, stream=True)

    def _route(self, target: str) -> tuple[RelaySlot | None, str]:
        """The slot the path names and the path to forward (`/s/<id>` taken off)."""
        parts = urlsplit(target)
        pieces = parts.path.split("/", 3)  # "", "s", id, rest
        if len(pieces) < 3 or pieces[1] != "s":
            return None, ""
        slot = self._slots.get(pieces[2])
        rest = "/" + pieces[3] if len(pieces) > 3 else "/"
        return slot, rest + (f"?{parts.query}" if parts.query else "")


def _model_of(body: bytes, default: str) -> str:
    """The model a Messages call names (the CLI also calls small models on the side): each
    endpoint and model has its own limiter, as in registry.py."""
    if b'"model"' not in body:
        return default
    try:
        model = json.loads(body).get("model")
    except (ValueError, AttributeError):
        return default
    return model if isinstance(model, str) and model else default


def _answer_headers(headers: httpx.Headers, decoded: bool) -> list[tuple[str, str]]:
    """The upstream's headers minus the hop-by-hop ones (h11 frames the body itself); a body
    httpx has read is decoded, so it no longer has its content-encoding."""
    dropped = _HOP_BY_HOP | {"content-encoding"} if decoded else _HOP_BY_HOP
    return [(k, v) for k, v in headers.multi_items() if k.lower() not in dropped]


async def _error(respond: ResponseWriter, status: int, kind: str, message: str) -> None:
    """An answer in the Messages API's own error shape, which the CLI shows as its text."""
    body = json.dumps({"type": "error", "error": {"type": kind, "message": message}}).encode()
    await respond.start(
        status, [("content-type", "application/json"), ("content-length", str(len(body)))]
    )
    await respond.write(body)
    await respond.end()
