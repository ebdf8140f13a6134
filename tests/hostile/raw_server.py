"""A raw JSON-RPC client over the real server's stdio (`python -m holodeck_lsp`), for what
pytest-lsp's typed client cannot send: malformed params (a position as a string, `params:
null`), and requests whose answer must arrive by a deadline while another request is still
being answered. Messages are plain dicts; answers are matched by id, notifications kept."""

from __future__ import annotations

import asyncio
import contextlib
import json
from pathlib import Path
from typing import Any

from pygls import uris

from tests.server.lsp_client import SERVER_COMMAND, SERVER_ENV

#: The stream reader's buffer: a document of tens of megabytes travels in one message.
_LIMIT = 1 << 30


def uri(path: Path) -> str:
    return str(uris.from_fs_path(str(path)))


def _reply_to(request: dict[str, Any]) -> Any:
    """The client's answer to a server request: default settings for each section asked."""
    if request["method"] == "workspace/configuration":
        return [{} for _ in (request.get("params") or {}).get("items", [])]
    return None


class RawServer:
    """One server process; `request` sends and returns the id, `answer` waits for it."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.answers: dict[int, dict[str, Any]] = {}
        self.notifications: list[dict[str, Any]] = []
        self._arrived = asyncio.Event()
        self._next_id = 0
        self._reading = asyncio.ensure_future(self._read())

    @classmethod
    async def start(cls) -> RawServer:
        process = await asyncio.create_subprocess_exec(
            *SERVER_COMMAND,
            stdin=asyncio.subprocess.PIPE,
            stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.DEVNULL,
            env=SERVER_ENV,
            limit=_LIMIT,
        )
        return cls(process)

    async def _read(self) -> None:
        stdout = self.process.stdout
        assert stdout is not None
        while True:
            try:
                header = await stdout.readuntil(b"\r\n\r\n")
            except (asyncio.IncompleteReadError, ConnectionError):
                return
            length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
            message = json.loads(await stdout.readexactly(length))
            if "method" in message and "id" in message:  # a request from the server
                self.send({"jsonrpc": "2.0", "id": message["id"], "result": _reply_to(message)})
            elif "method" in message:
                self.notifications.append(message)
            else:
                self.answers[message["id"]] = message
            self._arrived.set()

    def send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode()
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def request(self, method: str, params: Any = None, *, omit_params: bool = False) -> int:
        self._next_id += 1
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": self._next_id, "method": method}
        if not omit_params:
            message["params"] = params
        self.send(message)
        return self._next_id

    def notify(self, method: str, params: Any) -> None:
        self.send({"jsonrpc": "2.0", "method": method, "params": params})

    def cancel(self, request_id: int) -> None:
        self.notify("$/cancelRequest", {"id": request_id})

    async def answer(self, request_id: int, timeout: float) -> dict[str, Any]:
        """The response to `request_id`; AssertionError when none arrives within `timeout`."""
        loop = asyncio.get_running_loop()
        deadline = loop.time() + timeout
        while request_id not in self.answers:
            left = deadline - loop.time()
            if left <= 0 or self._reading.done():
                raise AssertionError(f"no answer to request {request_id} within {timeout} s")
            self._arrived.clear()
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._arrived.wait(), left)
        return self.answers[request_id]

    async def call(self, method: str, params: Any, timeout: float) -> dict[str, Any]:
        return await self.answer(self.request(method, params), timeout)

    async def initialize(self, root: Path) -> dict[str, Any]:
        """The initialize result (its capabilities list the request methods served)."""
        reply = await self.call(
            "initialize",
            {
                "processId": None,
                "rootUri": uri(root),
                "capabilities": {"workspace": {"configuration": True}},
                "initializationOptions": {"trusted": False, "diagnostics": "push"},
            },
            timeout=60,
        )
        self.notify("initialized", {})
        result: dict[str, Any] = reply["result"]
        return result

    def open(self, path: Path, text: str) -> str:
        document = uri(path)
        self.notify(
            "textDocument/didOpen",
            {"textDocument": {"uri": document, "languageId": "yaml", "version": 1, "text": text}},
        )
        return document

    async def stop(self) -> None:
        """shutdown → exit, then make sure the process is gone (killed when it is still busy:
        the tests' checks of hostile documents need not finish)."""
        try:
            await self.answer(self.request("shutdown", omit_params=True), timeout=2)
            self.notify("exit", None)
            await asyncio.wait_for(self.process.wait(), 2)
        except (TimeoutError, AssertionError, ConnectionError):
            pass
        finally:
            if self.process.returncode is None:
                self.process.kill()
                await self.process.wait()
            self._reading.cancel()
