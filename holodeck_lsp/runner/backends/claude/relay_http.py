"""The HTTP/1.1 side of the Claude relay (relay.py): one loopback connection of the Claude
Code CLI, read and answered with h11 (the sans-I/O parser httpcore is built on, so the
`claude` extra brings it), request after request while the CLI keeps the connection alive.

The CLI aborts a request (a turn's timeout, an interrupt) by closing its connection. While a
request is answered, its connection is watched: a close cancels the answer, so a request that
waits at the limiter or streams from upstream for a CLI that has gone away stops at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from dataclasses import dataclass

import h11

_READ_SIZE = 65536
_log = logging.getLogger(__name__)


@dataclass(frozen=True, slots=True)
class IncomingRequest:
    method: str
    #: The path and query, as the CLI sent them.
    target: str
    headers: list[tuple[str, str]]
    body: bytes


class ResponseWriter:
    """Sends one response: `start` (status + headers), `write` its body, `end`."""

    def __init__(self, conn: h11.Connection, writer: asyncio.StreamWriter) -> None:
        self._conn = conn
        self._writer = writer
        self.started = False

    async def start(self, status: int, headers: list[tuple[str, str]]) -> None:
        self.started = True
        await self._send(h11.Response(status_code=status, headers=headers))

    async def write(self, data: bytes) -> None:
        if data:
            await self._send(h11.Data(data=data))

    async def end(self) -> None:
        await self._send(h11.EndOfMessage())

    async def _send(self, event: h11.Event) -> None:
        data = self._conn.send(event)
        if data:
            self._writer.write(data)
            await self._writer.drain()  # an SSE stream goes out as it comes in


Handler = Callable[[IncomingRequest, ResponseWriter], Awaitable[None]]


async def serve_connection(
    reader: asyncio.StreamReader, writer: asyncio.StreamWriter, handle: Handler
) -> None:
    """Answer the connection's requests with `handle` until either side closes it."""
    conn = h11.Connection(h11.SERVER)
    try:
        while True:
            request = await _read_request(conn, reader, writer)
            if request is None:
                return
            if not await _answer(conn, reader, writer, request, handle):
                return
            if conn.our_state is not h11.DONE or conn.their_state is not h11.DONE:
                return  # h11 says the connection cannot carry another request
            conn.start_next_cycle()
    except (h11.ProtocolError, ConnectionError, OSError):
        return  # a broken client: nothing to answer it with
    finally:
        writer.close()
        with contextlib.suppress(Exception):
            await writer.wait_closed()


async def _read_request(
    conn: h11.Connection, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
) -> IncomingRequest | None:
    head: h11.Request | None = None
    body = bytearray()
    while True:
        event = conn.next_event()
        if event is h11.NEED_DATA:
            if conn.they_are_waiting_for_100_continue:  # `Expect: 100-continue`: send it
                writer.write(
                    conn.send(h11.InformationalResponse(status_code=100, headers=[])) or b""
                )
                await writer.drain()
            data = await reader.read(_READ_SIZE)
            conn.receive_data(data)  # b"" tells h11 the client closed
            continue
        if isinstance(event, h11.Request):
            head = event
        elif isinstance(event, h11.Data):
            body += event.data
        elif isinstance(event, h11.EndOfMessage) and head is not None:
            return IncomingRequest(
                method=head.method.decode("ascii"),
                target=head.target.decode("ascii"),
                headers=[(k.decode("latin-1"), v.decode("latin-1")) for k, v in head.headers],
                body=bytes(body),
            )
        elif isinstance(event, h11.ConnectionClosed):
            return None


async def _answer(
    conn: h11.Connection,
    reader: asyncio.StreamReader,
    writer: asyncio.StreamWriter,
    request: IncomingRequest,
    handle: Handler,
) -> bool:
    """Answer one request; False when the client went away meanwhile."""
    respond = ResponseWriter(conn, writer)
    answering = asyncio.ensure_future(handle(request, respond))
    watching = asyncio.ensure_future(reader.read(_READ_SIZE))
    try:
        await asyncio.wait({answering, watching}, return_when=asyncio.FIRST_COMPLETED)
        if watching.done():
            early = watching.result()
            if not early:  # the client closed: nobody wants this answer any more
                answering.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await answering
                return False
            conn.receive_data(early)  # a pipelined request, read after this answer
        try:
            await answering
        except OSError:  # either side's connection was lost mid-answer: close this one
            return False
        except Exception:  # a bug: this connection is closed, the relay goes on
            _log.warning("the Claude relay failed to answer a request", exc_info=True)
            return False
        return True
    finally:
        for task in (answering, watching):
            if not task.done():
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError, Exception):
                    await task
