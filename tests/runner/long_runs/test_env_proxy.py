"""The rate-limited client transport honours HTTP_PROXY / HTTPS_PROXY / NO_PROXY as httpx's
`trust_env` does (a hand-built transport makes httpx ignore them): the Semantic Kernel
backend's openai client, built by runner/backends/sk/limited_client.py, against a loopback
forwarding proxy in front of the loopback OpenAI fake."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass, field

import pytest

from holodeck_lsp.runner.backends.sk.limited_client import limited_http_client
from holodeck_lsp.runner.limits import registry
from holodeck_lsp.runner.limits.env_proxy import environment_proxies, proxy_for
from holodeck_lsp.schema.llm import LLMProvider, Provider
from tests.fakes.openai_server import FakeOpenAIServer, Reply


@dataclass
class LoopbackProxy:
    """A forwarding HTTP proxy: an absolute-form request is sent on to its origin and the
    answer relayed (one request per connection); a CONNECT is recorded and refused."""

    seen: list[str] = field(default_factory=list)
    port: int = 0

    async def handle(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        head = await reader.readuntil(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        method, target, _ = lines[0].split(" ", 2)
        self.seen.append(f"{method} {target}")
        if method == "CONNECT":
            writer.write(b"HTTP/1.1 403 Forbidden\r\ncontent-length: 0\r\n\r\n")
            await writer.drain()
            writer.close()
            return
        headers = [line for line in lines[1:] if line]
        length = next(
            (int(h.split(":", 1)[1]) for h in headers if h.lower().startswith("content-length")),
            0,
        )
        body = await reader.readexactly(length)
        rest = target.removeprefix("http://")
        hostport, _, path = rest.partition("/")
        host, _, port = hostport.partition(":")
        up_reader, up_writer = await asyncio.open_connection(host, int(port or 80))
        kept = [h for h in headers if not h.lower().startswith(("connection", "proxy-"))]
        request = f"{method} /{path} HTTP/1.1\r\n" + "".join(f"{h}\r\n" for h in kept)
        up_writer.write(request.encode("latin-1") + b"connection: close\r\n\r\n" + body)
        await up_writer.drain()
        answer = await up_reader.read()
        up_writer.close()
        writer.write(answer)
        await writer.drain()
        writer.close()


@pytest.fixture
async def proxy() -> AsyncIterator[LoopbackProxy]:
    found = LoopbackProxy()
    server = await asyncio.start_server(found.handle, "127.0.0.1", 0)
    found.port = server.sockets[0].getsockname()[1]
    async with server:
        yield found


def _model() -> LLMProvider:
    return LLMProvider(provider=Provider.OPENAI, name="gpt-proxy")


async def test_http_proxy_carries_the_limited_clients_requests(
    monkeypatch: pytest.MonkeyPatch, proxy: LoopbackProxy, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = lambda body: Reply(text="via the proxy")
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
    monkeypatch.delenv("NO_PROXY", raising=False)
    monkeypatch.delenv("no_proxy", raising=False)
    registry.configure(registry.LimitSettings())
    base = f"{fake_openai.base_url}/v1"
    client = limited_http_client(base, _model(), retry_budget=0)
    try:
        body = {"model": "gpt-proxy", "messages": [{"role": "user", "content": "hi"}]}
        response = await client.post(f"{base}/chat/completions", json=body)
    finally:
        await client.aclose()
    assert response.status_code == 200
    assert response.json()["choices"][0]["message"]["content"] == "via the proxy"
    assert proxy.seen == [f"POST {base}/chat/completions"]  # through the proxy
    assert len(fake_openai.chat_requests) == 1  # and on to the server


async def test_https_proxy_is_asked_to_connect_to_the_provider(
    monkeypatch: pytest.MonkeyPatch, proxy: LoopbackProxy
) -> None:
    monkeypatch.setenv("HTTPS_PROXY", f"http://127.0.0.1:{proxy.port}")
    registry.configure(registry.LimitSettings())
    base = "https://api.provider.invalid/v1"
    client = limited_http_client(base, _model(), retry_budget=0)
    try:
        with pytest.raises(Exception, match="403"):
            await client.post(f"{base}/chat/completions", json={})
    finally:
        await client.aclose()
    # Not a DNS lookup of the invalid host: the proxy was asked for a tunnel to it.
    assert proxy.seen == ["CONNECT api.provider.invalid:443"]


async def test_no_proxy_sends_straight(
    monkeypatch: pytest.MonkeyPatch, proxy: LoopbackProxy, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = lambda body: Reply(text="straight")
    monkeypatch.setenv("HTTP_PROXY", f"http://127.0.0.1:{proxy.port}")
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    registry.configure(registry.LimitSettings())
    base = f"{fake_openai.base_url}/v1"
    client = limited_http_client(base, _model(), retry_budget=0)
    try:
        response = await client.post(f"{base}/chat/completions", json={"messages": []})
    finally:
        await client.aclose()
    assert response.status_code == 200 and proxy.seen == []


def test_proxy_choice_follows_scheme_all_proxy_and_no_proxy(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name in ("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy", "NO_PROXY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("ALL_PROXY", "proxy.corp:3128")
    monkeypatch.setenv("no_proxy", ".internal")
    proxies = environment_proxies()
    assert proxy_for("https", "api.openai.com", proxies) == "http://proxy.corp:3128"
    assert proxy_for("https", "llm.internal", proxies) is None
