"""A slow model for the cancel test (vscode_cancel.mjs): the fake OpenAI chat-completions server
of tests/fakes/openai_server.py on 127.0.0.1, whose every answer (`0`) comes only after
`--delay` seconds — long enough that a run which ends sooner was cancelled.

    python -m tests.e2e.slow_model_server [--delay SECONDS]    # from the repository root

Prints `listening <base url>` once it serves, then serves until stdin closes (the script that
started it exits) or SIGTERM. An agent reaches it as its Ollama endpoint (Ollama's
OpenAI-compatible `/v1/chat/completions`; no API key), e.g. with the VS Code setting
`holodeck.backends: {"ollama": {"endpoint": "<base url>"}}`.

`GET /_e2e/requests` answers what the chat requests did so far, as JSON: `received` (arrived),
`waiting` (still being delayed), `abandoned` (the client closed the connection before the
answer: a cancelled run stopped waiting), `answered`.
"""

from __future__ import annotations

import argparse
import asyncio
import signal
import sys
from typing import Any

from aiohttp import web

from tests.fakes.openai_server import FakeOpenAIServer, Reply

#: How often a delayed answer checks whether its client is still connected (seconds).
POLL = 0.1


class SlowModelServer(FakeOpenAIServer):
    def __init__(self, delay: float) -> None:
        super().__init__()
        self.delay = delay
        self.counts = {"received": 0, "waiting": 0, "abandoned": 0, "answered": 0}
        self.responder = lambda body: Reply(text="0")

    def routes(self, app: web.Application) -> None:
        app.router.add_get("/_e2e/requests", self._status)
        app.router.add_post("/{prefix:.*}/chat/completions", self._slow)
        super().routes(app)

    async def _status(self, request: web.Request) -> web.Response:
        return web.json_response(self.counts)

    async def _slow(self, request: web.Request) -> web.StreamResponse:
        """Wait `delay` seconds (or until the client hangs up), then answer as the fake does."""
        self.counts["received"] += 1
        self.counts["waiting"] += 1
        try:
            loop = asyncio.get_running_loop()
            end = loop.time() + self.delay
            while loop.time() < end:
                transport = request.transport
                if transport is None or transport.is_closing():
                    self.counts["abandoned"] += 1
                    return web.Response(status=499)
                await asyncio.sleep(POLL)
        except asyncio.CancelledError:
            self.counts["abandoned"] += 1
            raise
        finally:
            self.counts["waiting"] -= 1
        self.counts["answered"] += 1
        return await self._handle(request)


async def serve(delay: float) -> None:
    server = SlowModelServer(delay)
    await server.start()
    print(f"listening {server.base_url}", flush=True)
    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    # stdin closed: whoever started us is gone
    loop.add_reader(sys.stdin.fileno(), lambda: stop.set() if not sys.stdin.read(1) else None)
    try:
        await stop.wait()
    finally:
        await server.stop()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--delay", type=float, default=300.0, help="seconds before each answer")
    arguments: Any = parser.parse_args(argv)
    asyncio.run(serve(arguments.delay))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
