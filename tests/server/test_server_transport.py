"""`holodeck-lsp --tcp --port N` serves the same server over TCP; bad flag use is refused."""

from __future__ import annotations

import asyncio
import json
import socket
import subprocess
import sys

import pytest

from holodeck_lsp.cli import main
from tests.server.lsp_client import SERVER_ENV


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


async def test_tcp_answers_initialize() -> None:
    port = free_port()
    command = [sys.executable, "-m", "holodeck_lsp", "--tcp", "--port", str(port)]
    server = subprocess.Popen(command, env=SERVER_ENV, stderr=subprocess.DEVNULL)
    try:
        for _ in range(200):
            try:
                reader, writer = await asyncio.open_connection("127.0.0.1", port)
                break
            except OSError:
                await asyncio.sleep(0.05)
        else:
            pytest.fail("the TCP server never listened")
        body = json.dumps(
            {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"capabilities": {}}}
        ).encode()
        writer.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)
        await writer.drain()
        header = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 10)
        length = int(header.split(b"Content-Length:")[1].split(b"\r\n")[0])
        reply = json.loads(await reader.readexactly(length))
        assert reply["id"] == 1
        assert reply["result"]["serverInfo"]["name"] == "holodeck-lsp"
        writer.close()
    finally:
        server.kill()
        server.wait()


@pytest.mark.parametrize(
    "argv", [["--port", "2087"], ["--tcp"], ["--host", "0.0.0.0", "--check", "x.yaml"]]
)
def test_tcp_flags_are_checked(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    assert main(argv) == 2
    assert "--tcp" in capsys.readouterr().err
