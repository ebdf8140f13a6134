"""server/early_handshake.py: the initialize answer given before pygls is imported, from the
cache of this client's last start — driven through the real `holodeck-lsp serve` over stdio,
with raw JSON-RPC frames so that every message the server writes is seen (a duplicate answer
to `initialize` would be a protocol error the pytest-lsp client might hide)."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.server.early_handshake import (
    ReplayingStdin,
    frame,
    read_message,
)

CAPABILITIES = {"textDocument": {"hover": {"contentFormat": ["markdown"]}}}
AGENT = "name: a\nmodel: {provider: openai, name: gpt-4o}\ninstructions: {inline: x}\n"


def spawn(cache: Path, env: dict[str, str] | None = None) -> subprocess.Popen[bytes]:
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache), **(env or {})}
    return subprocess.Popen(
        [sys.executable, "-m", "holodeck_lsp", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
    )


def session(
    cache: Path, tmp_path: Path, options: Any = None, env: dict[str, str] | None = None
) -> list[dict[str, Any]]:
    """initialize → initialized → didOpen → shutdown → exit; every message the server wrote."""
    agent = tmp_path / "agent.yaml"
    agent.write_text(AGENT + "bogus_key: 1\n", encoding="utf-8")
    process = spawn(cache, env)
    params: dict[str, Any] = {"processId": None, "rootUri": None, "capabilities": CAPABILITIES}
    if options is not None:
        params["initializationOptions"] = options
    messages = [
        {"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params},
        {"jsonrpc": "2.0", "method": "initialized", "params": {}},
        {
            "jsonrpc": "2.0",
            "method": "textDocument/didOpen",
            "params": {
                "textDocument": {
                    "uri": agent.as_uri(),
                    "languageId": "yaml",
                    "version": 1,
                    "text": agent.read_text(encoding="utf-8"),
                }
            },
        },
    ]
    assert process.stdin is not None and process.stdout is not None
    for message in messages:
        process.stdin.write(frame(message))
    process.stdin.flush()
    seen: list[dict[str, Any]] = []
    shutdown_sent = False
    while True:
        read = read_message(process.stdout)
        assert read is not None, process.stderr.read().decode() if process.stderr else ""
        message = read[1]
        seen.append(message)
        if message.get("method") == "workspace/configuration":
            process.stdin.write(frame({"jsonrpc": "2.0", "id": message["id"], "result": [None]}))
            process.stdin.flush()
        if message.get("method") == "textDocument/publishDiagnostics" and not shutdown_sent:
            shutdown_sent = True
            process.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
            process.stdin.flush()
        if message.get("id") == 2 and "result" in message:
            break
    process.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    process.stdin.close()
    assert process.wait(timeout=20) == 0
    return seen


def answers_to_initialize(messages: list[dict[str, Any]]) -> list[Any]:
    return [m["result"] for m in messages if m.get("id") == 1 and "result" in m]


def cache_files(cache: Path) -> list[Path]:
    return sorted((cache / "holodeck-lsp" / "handshake").glob("*.json"))


@pytest.mark.slow
def test_the_second_start_answers_from_the_cache_once_and_serves_as_usual(
    tmp_path: Path,
) -> None:
    cache = tmp_path / "cache"
    first = session(cache, tmp_path)
    [stored] = cache_files(cache)
    second = session(cache, tmp_path)
    assert len(answers_to_initialize(first)) == 1
    assert len(answers_to_initialize(second)) == 1  # the server's own answer was dropped
    assert answers_to_initialize(second) == answers_to_initialize(first)
    assert json.loads(stored.read_text(encoding="utf-8")) == answers_to_initialize(first)[0]
    # The server itself was initialized from the same request: it checks and publishes.
    published = [m for m in second if m.get("method") == "textDocument/publishDiagnostics"]
    assert published and any(d["code"] == "HD100" for d in published[0]["params"]["diagnostics"]), (
        published
    )


@pytest.mark.slow
def test_a_stale_cached_answer_is_replaced_by_the_servers_own(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    real = answers_to_initialize(session(cache, tmp_path))[0]
    [stored] = cache_files(cache)
    stored.write_text(json.dumps({"capabilities": {"stale": True}}), encoding="utf-8")
    sent = answers_to_initialize(session(cache, tmp_path))
    assert sent == [{"capabilities": {"stale": True}}]  # what the cache said, once
    assert json.loads(stored.read_text(encoding="utf-8")) == real  # corrected for next time


@pytest.mark.slow
def test_other_settings_are_another_entry_and_the_switch_turns_it_off(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    session(cache, tmp_path)
    session(cache, tmp_path, options={"diagnostics": "push"})
    assert len(cache_files(cache)) == 2
    off = tmp_path / "off"
    session(off, tmp_path, env={"HOLODECK_LSP_EARLY_HANDSHAKE": "0"})
    assert not off.exists()


def test_a_message_is_read_whole_and_read_again_by_the_server() -> None:
    first = frame({"jsonrpc": "2.0", "id": 7, "method": "initialize", "params": {}})
    rest = frame({"jsonrpc": "2.0", "method": "initialized", "params": {}})
    stream = io.BytesIO(first + rest)
    read = read_message(stream)
    assert read is not None and read[0] == first and read[1]["id"] == 7
    replay = ReplayingStdin(read[0], stream)
    header = replay.readline()
    assert header.startswith(b"Content-Length: ")
    assert replay.readline() == b"\r\n"
    length = int(header.split(b":")[1])
    assert json.loads(replay.read(length))["method"] == "initialize"
    replay.readline(), replay.readline()
    assert b"initialized" in replay.read(len(rest))


def test_what_is_not_a_message_is_left_to_the_server() -> None:
    assert read_message(io.BytesIO(b"")) is None
    assert read_message(io.BytesIO(b"Content-Length: x\r\n\r\n{}")) is None
    raw, body = read_message(io.BytesIO(b"Content-Length: 3\r\n\r\n{x}")) or (b"", 0)
    assert raw.endswith(b"{x}") and body is None


@pytest.mark.slow
def test_the_cache_keeps_no_initialization_option_values(tmp_path: Path) -> None:
    """Settings may carry paths or tokens: they are hashed into the entry's name, never stored."""
    cache = tmp_path / "cache"
    planted = "sk-planted-in-init-options-4f2a"
    session(cache, tmp_path, options={"cassette": planted})
    [stored] = cache_files(cache)
    assert planted not in stored.read_text(encoding="utf-8")
    assert planted not in stored.name
