"""Stands between an editor and the language server and records their conversation:
`python lsp_relay.py LOG COMMAND...` starts COMMAND, passes every LSP message unchanged both
ways (stdin → server, server → stdout) and appends each one to LOG as a JSON line
`{"from": "client" | "server", "time": <epoch seconds>, "message": {...}}`, flushed at once,
so a test can read the traffic while the editor is still running (tests/editors/test_kate.py).
Standard library only: the editor starts it with the interpreter running the tests."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from typing import IO


def read_message(stream: IO[bytes]) -> bytes | None:
    """One framed message (headers and body) from `stream`, or None at its end."""
    headers = b""
    length = None
    while True:
        line = stream.readline()
        if not line:
            return None
        headers += line
        if line in (b"\r\n", b"\n"):
            break
        name, _, value = line.decode("ascii").partition(":")
        if name.strip().lower() == "content-length":
            length = int(value.strip())
    if length is None:
        return None
    body = stream.read(length)
    if len(body) < length:
        return None
    return headers + body


def pump(
    source: IO[bytes], target: IO[bytes], sender: str, log: IO[str], lock: threading.Lock
) -> None:
    while (message := read_message(source)) is not None:
        target.write(message)
        target.flush()
        body = message.split(b"\r\n\r\n", 1)[-1]
        with lock:
            entry = {"from": sender, "time": time.time(), "message": json.loads(body)}
            log.write(json.dumps(entry) + "\n")
            log.flush()
    target.close()


def main(argv: list[str]) -> int:
    log_path, *command = argv
    server = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert server.stdin is not None and server.stdout is not None
    lock = threading.Lock()
    with open(log_path, "a", encoding="utf-8") as log:
        to_server = threading.Thread(
            target=pump, args=(sys.stdin.buffer, server.stdin, "client", log, lock), daemon=True
        )
        to_server.start()
        pump(server.stdout, sys.stdout.buffer, "server", log, lock)
    return server.wait()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
