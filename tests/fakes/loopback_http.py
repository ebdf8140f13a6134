"""What every loopback HTTP fake shares (the OpenAI, Anthropic and judge fakes): an aiohttp app
on 127.0.0.1 at a free port, `async with` to start and stop it, `base_url`, and a record of
each request as it arrived. A fake says only what its protocol answers: `routes(app)`.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Self

from aiohttp import web


@dataclass
class RecordedRequest:
    method: str
    path: str
    headers: dict[str, str]
    body: Any

    def text(self) -> str:
        """The body as JSON text, for substring assertions."""
        return json.dumps(self.body)


async def read_request(request: web.Request) -> tuple[str, str, dict[str, str], Any]:
    """(method, path with query, lower-cased headers, body): the body parsed as JSON when it
    is JSON, else its text."""
    raw = await request.read()
    try:
        body: Any = json.loads(raw) if raw else None
    except ValueError:
        body = raw.decode("utf-8", "replace")
    headers = {key.lower(): value for key, value in request.headers.items()}
    return request.method, request.path_qs, headers, body


class LoopbackHTTPServer:
    """`async with Fake() as server:` → `server.base_url`; subclasses add their routes."""

    #: Request bodies up to this size (a long-context turn, a judge prompt with documents).
    MAX_BODY = 64 * 1024 * 1024

    def __init__(self) -> None:
        self._runner: web.AppRunner | None = None
        self.port = 0

    def routes(self, app: web.Application) -> None:
        raise NotImplementedError

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    async def start(self, port: int = 0) -> None:
        app = web.Application(client_max_size=self.MAX_BODY)
        self.routes(app)
        # At stop, a reply still held back (a slow answer its client abandoned: a cancel, a
        # Ctrl-C) is cancelled after this instead of being waited for (aiohttp's 60 s).
        self._runner = web.AppRunner(app, access_log=None, shutdown_timeout=0.25)
        await self._runner.setup()
        site = web.TCPSite(self._runner, "127.0.0.1", port)
        await site.start()
        server = site._server  # aiohttp exposes the bound port only here
        assert server is not None
        sockets = getattr(server, "sockets", None) or []
        self.port = int(sockets[0].getsockname()[1])

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def __aenter__(self) -> Self:
        await self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
