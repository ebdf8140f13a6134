"""The Claude relay (backends/claude/relay.py) on its own, without the CLI: an httpx client
plays the CLI against the relay, in front of a loopback upstream — the session prefix
routed and stripped, an SSE answer relayed byte for byte as it streams and holding its place
in the window until its last byte, `tpm` charged from the stream's usage, proxies of the
environment honoured, and the CLI's environment made for the relay."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from aiohttp import web

from holodeck_lsp.runner.backends.claude.cli_environment import through_relay
from holodeck_lsp.runner.backends.claude.relay import LimitingRelay
from holodeck_lsp.runner.backends.claude.relay_usage import AnswerUsage
from holodeck_lsp.runner.limits import registry
from holodeck_lsp.runner.limits.endpoint import EndpointLimits
from tests.fakes.anthropic_server import FakeAnthropicServer, Reply
from tests.runner.long_runs.test_env_proxy import LoopbackProxy

MODEL = "claude-relay-1"
#: An SSE answer as the Messages API streams it, cut where the upstream pauses.
_PIECES = (
    b'event: message_start\ndata: {"type":"message_start","message":{"usage":'
    b'{"input_tokens":120,"output_tokens":1}}}\n\n',
    b'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,'
    b'"delta":{"type":"text_delta","text":"hel',
    b'lo"}}\n\nevent: message_delta\ndata: {"type":"message_delta","usage":'
    b'{"output_tokens":30}}\n\nevent: message_stop\ndata: {"type":"message_stop"}\n\n',
)


@pytest.fixture(autouse=True)
def _fresh_limiters() -> Iterator[None]:
    before = registry.settings()
    registry.configure(registry.LimitSettings())
    yield
    registry.configure(before)


class PausingUpstream:
    """Streams `_PIECES`, waiting after the first until `go` is set; records what it saw."""

    def __init__(self) -> None:
        self.go = asyncio.Event()
        self.first_sent = asyncio.Event()
        self.seen: list[tuple[str, dict[str, str], bytes]] = []
        self.base_url = ""
        #: Drop the connection after the first piece instead of sending the rest.
        self.cut = False

    async def handle(self, request: web.Request) -> web.StreamResponse:
        self.seen.append((request.path_qs, dict(request.headers), await request.read()))
        response = web.StreamResponse(headers={"content-type": "text/event-stream"})
        await response.prepare(request)
        await response.write(_PIECES[0])
        self.first_sent.set()
        await self.go.wait()
        if self.cut and request.transport is not None:
            request.transport.close()
            return response
        for piece in _PIECES[1:]:
            await response.write(piece)
        await response.write_eof()
        return response


@pytest.fixture
async def upstream() -> AsyncIterator[PausingUpstream]:
    found = PausingUpstream()
    app = web.Application()
    app.router.add_route("*", "/{tail:.*}", found.handle)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    found.base_url = f"http://127.0.0.1:{site._server.sockets[0].getsockname()[1]}"  # type: ignore[union-attr]
    try:
        yield found
    finally:
        found.go.set()
        await runner.cleanup()


async def _relay(base_url: str) -> LimitingRelay:
    relay = LimitingRelay(base_url, MODEL)
    await relay.start()
    return relay


async def test_an_sse_answer_streams_through_byte_for_byte_holding_its_window_place(
    upstream: PausingUpstream,
) -> None:
    registry.configure(registry.LimitSettings(limits={"anthropic": EndpointLimits(tpm=1_000_000)}))
    relay = await _relay(upstream.base_url)
    slot = relay.open_slot()
    limiter = registry.limiter_for(upstream.base_url, f"anthropic:{MODEL}")
    received = bytearray()
    try:
        async with httpx.AsyncClient() as client:
            url = relay.base_url(slot) + "/v1/messages?beta=true"
            body = b'{"model": "' + MODEL.encode() + b'", "stream": true}'
            headers = {"x-api-key": "sk-ant-secret", "content-type": "application/json"}
            async with client.stream("POST", url, content=body, headers=headers) as response:
                assert response.status_code == 200
                assert response.headers["content-type"] == "text/event-stream"
                chunks = response.aiter_raw()
                received += await anext(chunks)
                # The first event arrived while the upstream still holds the rest: streamed,
                # not buffered; and the request still counts as in flight.
                assert bytes(received) == _PIECES[0]
                assert limiter.window.in_flight == 1
                upstream.go.set()
                async for chunk in chunks:
                    received += chunk
        for _ in range(50):  # the relay gives the place back once the last byte is out
            if limiter.window.in_flight == 0:
                break
            await asyncio.sleep(0.01)
    finally:
        await relay.aclose()
    assert bytes(received) == b"".join(_PIECES)
    assert limiter.window.in_flight == 0
    path, seen_headers, seen_body = upstream.seen[0]
    assert path == "/v1/messages?beta=true"  # the session prefix is not forwarded
    assert seen_headers["x-api-key"] == "sk-ant-secret" and seen_body == body
    assert seen_headers["Accept-Encoding"] == "identity"  # so the bytes are the provider's
    # 120 input + 30 output tokens, read from the stream, charged to the tpm bucket.
    assert limiter.tokens is not None
    assert limiter.tokens.capacity - limiter.tokens.level == pytest.approx(150, abs=5)


async def test_an_answer_cut_upstream_is_cut_for_the_cli_too(
    upstream: PausingUpstream, caplog: pytest.LogCaptureFixture
) -> None:
    upstream.cut = True
    relay = await _relay(upstream.base_url)
    slot = relay.open_slot()
    limiter = registry.limiter_for(upstream.base_url, f"anthropic:{MODEL}")
    received = bytearray()
    try:
        async with httpx.AsyncClient() as client:
            url = relay.base_url(slot) + "/v1/messages"
            async with client.stream("POST", url, json={"model": MODEL}) as response:
                chunks = response.aiter_raw()
                received += await anext(chunks)
                upstream.go.set()
                with pytest.raises(httpx.TransportError):
                    async for chunk in chunks:
                        received += chunk
    finally:
        await relay.aclose()
    assert bytes(received) == _PIECES[0]  # not retried: the CLI already had part of it
    assert len(upstream.seen) == 1
    assert limiter.window.in_flight == 0
    assert not [r for r in caplog.records if r.levelno >= 30], caplog.text  # weather, no bug


async def test_a_request_without_a_known_session_is_refused_not_forwarded(
    fake_anthropic: FakeAnthropicServer,
) -> None:
    relay = await _relay(fake_anthropic.base_url)
    slot = relay.open_slot()
    try:
        async with httpx.AsyncClient() as client:
            base = relay.base_url(slot)
            port_root = base.split("/s/")[0]
            strangers = [f"{port_root}/v1/messages", f"{port_root}/s/not-a-session/v1/messages"]
            answers = [await client.post(url, json={"model": MODEL}) for url in strangers]
            relay.close_slot(slot)
            answers.append(await client.post(base + "/v1/messages", json={"model": MODEL}))
    finally:
        await relay.aclose()
    assert [a.status_code for a in answers] == [404, 404, 404]
    assert answers[0].json()["error"]["type"] == "not_found_error"
    assert fake_anthropic.requests == []


async def test_the_relay_reaches_the_api_through_the_environments_proxy(
    monkeypatch: pytest.MonkeyPatch, fake_anthropic: FakeAnthropicServer
) -> None:
    proxy = LoopbackProxy()
    server = await asyncio.start_server(proxy.handle, "127.0.0.1", 0)
    proxy.port = server.sockets[0].getsockname()[1]
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
    for name in ("NO_PROXY", "no_proxy"):
        monkeypatch.delenv(name, raising=False)
    fake_anthropic.script(Reply(text="via the proxy"))
    async with server:
        relay = await _relay(fake_anthropic.base_url)
        slot = relay.open_slot()
        try:
            async with httpx.AsyncClient(trust_env=False) as client:
                answer = await client.post(
                    relay.base_url(slot) + "/v1/messages",
                    json={"model": MODEL, "max_tokens": 100, "messages": []},
                )
        finally:
            await relay.aclose()
    assert answer.status_code == 200
    assert answer.json()["content"][0]["text"] == "via the proxy"
    assert proxy.seen == [f"POST {fake_anthropic.base_url}/v1/messages"]


def test_the_cli_calls_the_relay_directly_and_does_not_retry() -> None:
    env = {
        "HTTPS_PROXY": "http://proxy.corp:3128",
        "NO_PROXY": "internal.corp",
        "CLAUDE_CODE_MAX_RETRIES": "10",
        "ANTHROPIC_BASE_URL": "https://api.anthropic.com",
    }
    relayed = through_relay(env, "http://127.0.0.1:4242/s/abc")
    assert relayed["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:4242/s/abc"
    assert relayed["CLAUDE_CODE_MAX_RETRIES"] == "0"
    assert relayed["NO_PROXY"] == "internal.corp,127.0.0.1,localhost"
    assert relayed["no_proxy"] == "127.0.0.1,localhost"
    assert relayed["HTTPS_PROXY"] == "http://proxy.corp:3128"  # its web tools may need it
    without_proxy = through_relay({"PATH": "/bin"}, "http://127.0.0.1:1/s/x")
    assert "NO_PROXY" not in without_proxy and "no_proxy" not in without_proxy


def test_usage_is_read_from_json_and_sse_answers() -> None:
    streamed = AnswerUsage("text/event-stream; charset=utf-8")
    for piece in _PIECES:
        for n in range(0, len(piece), 7):  # lines cut anywhere
            streamed.feed(piece[n : n + 7])
    assert streamed.tokens() == 150
    whole = AnswerUsage("application/json")
    whole.feed(b'{"usage": {"input_tokens": 11, ')
    whole.feed(b'"output_tokens": 4}}')
    assert whole.tokens() == 15
    assert AnswerUsage("application/json").tokens() == 0
