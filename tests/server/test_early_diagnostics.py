"""server/early_diagnostics.py: the diagnostics of the files opened at start, published before
pygls is imported — driven through the real `holodeck-lsp serve` over stdio with raw frames, so
that every publish is seen in order. The early publish must be exactly what the server itself
publishes next for the same version (the server's own first check, converted the same way)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.server.early_handshake import frame, read_message

REPO = Path(__file__).resolve().parents[2]
CORPUS = REPO / "tests" / "corpus"
PUBLISH = "textDocument/publishDiagnostics"
OFF = {"HOLODECK_LSP_EARLY_DIAGNOSTICS": "0"}
#: An emoji (two UTF-16 units, one code point) before a fault: the encodings disagree on it.
WIDE = (
    "name: a\nmodel: {provider: openai, name: gpt-4o}\ninstructions: {inline: 'x'}\n"
    "test_cases:\n  - {name: c, input: '\U0001f600 q', ground_truth: 1}\n"
)


def _open(path: Path, version: int = 1, text: str | None = None) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "textDocument/didOpen",
        "params": {
            "textDocument": {
                "uri": path.as_uri(),
                "languageId": "yaml",
                "version": version,
                "text": path.read_text(encoding="utf-8") if text is None else text,
            }
        },
    }


def session(
    cache: Path,
    after_initialize: list[dict[str, Any]],
    *,
    capabilities: dict[str, Any] | None = None,
    options: Any = None,
    env: dict[str, str] | None = None,
    until: Callable[[list[dict[str, Any]]], bool] | None = None,
    configuration: Any = None,
    settle: bool = False,
) -> list[dict[str, Any]]:
    """initialize, then `after_initialize` at once (as editors send initialized + didOpen),
    answering the server's requests, until `until(publishes after the server's first own
    message)` (default: one arrived) — or, with `settle`, until the server answered a
    `shutdown` sent once it asked for its settings (it handles the messages in order, so
    whatever the didOpen publishes at once is in); then exit. Every message the server wrote."""
    done = until or (lambda late: len(late) >= 1)
    environment = {**os.environ, "XDG_CACHE_HOME": str(cache), **(env or {})}
    process = subprocess.Popen(
        [sys.executable, "-m", "holodeck_lsp", "serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=environment,
    )
    assert process.stdin is not None and process.stdout is not None
    watchdog = threading.Timer(60, process.kill)  # a publish that never comes fails, not hangs
    watchdog.start()
    params: dict[str, Any] = {
        "processId": None,
        "rootUri": None,
        # workspace/configuration: the server's first own message, which `split` goes by.
        "capabilities": {"workspace": {"configuration": True}, **(capabilities or {})},
    }
    if options is not None:
        params["initializationOptions"] = options
    process.stdin.write(
        frame({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": params})
    )
    process.stdin.flush()
    seen: list[dict[str, Any]] = []
    server_started = False
    late: list[dict[str, Any]] = []
    sent_rest = False
    shutdown_sent = False
    while settle or not done(late):
        read = read_message(process.stdout)
        assert read is not None, process.stderr.read().decode() if process.stderr else ""
        message = read[1]
        seen.append(message)
        if message.get("id") == 1 and not sent_rest:
            sent_rest = True
            for item in after_initialize:
                process.stdin.write(frame(item))
            process.stdin.flush()
        elif message.get("method") == "workspace/configuration":
            server_started = True
            answer = [configuration] * len(message["params"]["items"])
            process.stdin.write(frame({"jsonrpc": "2.0", "id": message["id"], "result": answer}))
            if settle and not shutdown_sent:
                shutdown_sent = True
                process.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
            process.stdin.flush()
        elif settle and message.get("id") == 2 and "result" in message:
            break
        elif "id" in message and "method" in message:  # other server requests
            server_started = True
            process.stdin.write(frame({"jsonrpc": "2.0", "id": message["id"], "result": None}))
            process.stdin.flush()
        elif message.get("method") == PUBLISH and server_started:
            late.append(message["params"])
    if not shutdown_sent:
        process.stdin.write(frame({"jsonrpc": "2.0", "id": 2, "method": "shutdown"}))
    process.stdin.write(frame({"jsonrpc": "2.0", "method": "exit"}))
    process.stdin.close()
    assert process.wait(timeout=30) == 0
    watchdog.cancel()
    return seen


def split(messages: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(publishes before the server's first own message, publishes after)."""
    early: list[dict[str, Any]] = []
    late: list[dict[str, Any]] = []
    started = False
    for message in messages:
        if message.get("method") == "workspace/configuration":
            started = True
        if message.get("method") == PUBLISH:
            (late if started else early).append(message["params"])
    return early, late


def warm(cache: Path, tmp_path: Path) -> None:
    """A first start caches the initialize answer (early publishing needs a cached answer)."""
    agent = tmp_path / "warm" / "agent.yaml"
    agent.parent.mkdir()
    agent.write_text(WIDE, encoding="utf-8")
    session(cache, [{"jsonrpc": "2.0", "method": "initialized", "params": {}}, _open(agent)])


@pytest.fixture(scope="module")
def warmed(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A cache warmed once for the module (the default capabilities and options), which
    each test copies: a start costs a server's start, and the answer is the same for all."""
    folder = tmp_path_factory.mktemp("warmed")
    warm(folder / "cache", folder)
    return folder / "cache"


def warm_copy(warmed: Path, tmp_path: Path) -> Path:
    """This test's own copy of the warmed cache (a session may write its cache again)."""
    cache = tmp_path / "cache"
    shutil.copytree(warmed, cache)
    return cache


def corpus_copy(tmp_path: Path, name: str) -> Path:
    target = tmp_path / name
    shutil.copytree(CORPUS / name, target)
    return target / "agent.yaml"


@pytest.mark.slow
def test_the_first_publish_comes_before_the_server_and_equals_its_own(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    agent = corpus_copy(tmp_path, "include-faults")  # faults in the agent and in its include
    opened = [{"jsonrpc": "2.0", "method": "initialized", "params": {}}, _open(agent)]
    # What the server publishes itself for the same messages, with this part switched off
    # (the start caches the initialize answer the early publish needs).
    _, own = split(session(cache, opened, env=OFF, until=lambda late: len(late) >= 2))
    early, late = split(session(cache, opened, settle=True))
    # The server took that check: whatever it publishes later for that version (it checks
    # again when its settings arrive) is the same list.
    first = {item["uri"]: item for item in early}
    assert all(item == first[item["uri"]] for item in late), late
    by_uri = {item["uri"]: item for item in own}
    assert (
        {item["uri"] for item in early}
        == set(by_uri)
        == {
            agent.as_uri(),
            (agent.parent / "cases.yaml").as_uri(),
        }
    )
    for item in early:
        assert item == by_uri[item["uri"]]
    assert any(item["diagnostics"] for item in early)


@pytest.mark.slow
def test_positions_follow_the_negotiated_encoding(tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    agent = tmp_path / "wide" / "agent.yaml"
    agent.parent.mkdir()
    agent.write_text(WIDE, encoding="utf-8")
    opened = [{"jsonrpc": "2.0", "method": "initialized", "params": {}}, _open(agent)]
    starts = {}
    for encodings in (["utf-32", "utf-16"], ["utf-16"]):
        capabilities = {"general": {"positionEncodings": encodings}}
        # The server's own publish; the start caches the answer for these capabilities.
        _, own = split(session(cache, opened, capabilities=capabilities, env=OFF))
        early, late = split(session(cache, opened, capabilities=capabilities, settle=True))
        assert len(early) == 1 and early[0] == own[0]
        assert all(item == early[0] for item in late), late
        [fault] = [d for d in early[0]["diagnostics"] if d["code"] == "HD102"]
        starts[encodings[0]] = fault["range"]["start"]["character"]
    assert starts["utf-16"] == starts["utf-32"] + 1  # the emoji is two UTF-16 units


@pytest.mark.slow
def test_switched_off_or_in_pull_mode_only_the_server_publishes(
    tmp_path: Path, warmed: Path
) -> None:
    cache = warm_copy(warmed, tmp_path)
    agent = tmp_path / "wide" / "agent.yaml"
    agent.parent.mkdir()
    agent.write_text(WIDE, encoding="utf-8")
    opened = [{"jsonrpc": "2.0", "method": "initialized", "params": {}}, _open(agent)]
    off = session(cache, opened, env=OFF)
    assert split(off)[0] == [] and len(split(off)[1]) == 1
    # Pull mode: nobody pushes; the server still starts (it asks for the configuration).
    started = lambda late: True  # noqa: E731 — pull mode publishes nothing to wait for
    session(cache, opened, options={"diagnostics": "pull"}, until=started)  # caches the set-up
    pulled = session(cache, opened, options={"diagnostics": "pull"}, until=started)
    assert [m for m in pulled if m.get("method") == PUBLISH] == []


@pytest.mark.slow
def test_a_file_that_is_not_an_agent_by_content_waits_for_the_server(
    tmp_path: Path, warmed: Path
) -> None:
    cache = warm_copy(warmed, tmp_path)
    named = tmp_path / "named" / "agent.yaml"  # an agent by name only: settings could disown it
    named.parent.mkdir()
    named.write_text("description: not one\n", encoding="utf-8")
    opened = [{"jsonrpc": "2.0", "method": "initialized", "params": {}}, _open(named)]
    early, late = split(session(cache, opened))
    assert early == [] and [item["uri"] for item in late] == [named.as_uri()]


@pytest.mark.slow
def test_an_edit_sent_at_once_is_what_the_server_publishes_last(
    tmp_path: Path, warmed: Path
) -> None:
    cache = warm_copy(warmed, tmp_path)
    agent = tmp_path / "edit" / "agent.yaml"
    agent.parent.mkdir()
    agent.write_text(WIDE, encoding="utf-8")
    fixed = WIDE.replace("ground_truth: 1", "ground_truth: '1'")
    change = {
        "jsonrpc": "2.0",
        "method": "textDocument/didChange",
        "params": {
            "textDocument": {"uri": agent.as_uri(), "version": 2},
            "contentChanges": [{"text": fixed}],
        },
    }
    opened = [{"jsonrpc": "2.0", "method": "initialized", "params": {}}, _open(agent), change]
    messages = session(cache, opened, until=lambda late: any(i.get("version") == 2 for i in late))
    early, late = split(messages)
    assert [item["version"] for item in early] == [1]
    assert late[-1]["version"] == 2 and late[-1]["diagnostics"] == []


@pytest.mark.slow
def test_a_file_the_workspace_globs_disown_is_cleared_by_the_server(
    tmp_path: Path, warmed: Path
) -> None:
    cache = warm_copy(warmed, tmp_path)
    agent = tmp_path / "disowned" / "agent.yaml"
    agent.parent.mkdir()
    agent.write_text("name: a\nbogus: 1\n", encoding="utf-8")  # an agent by name, not content
    opened = [{"jsonrpc": "2.0", "method": "initialized", "params": {}}, _open(agent)]
    cleared = lambda late: any(not item["diagnostics"] for item in late)  # noqa: E731
    disowning = {"agentGlobs": ["*.agent.yaml"]}
    early, late = split(session(cache, opened, configuration=disowning, until=cleared))
    assert [item["uri"] for item in early] == [agent.as_uri()] and early[0]["diagnostics"]
    assert late[-1]["uri"] == agent.as_uri() and late[-1]["diagnostics"] == []


@pytest.mark.slow
def test_a_substituted_value_is_in_no_publish_early_or_late(tmp_path: Path) -> None:
    """The loader quotes values in messages; a `${VAR}`'s is written back as the reference
    (checker/env_masking.py) — in the early publish and in the server's own."""
    planted = "sk-planted-early-9c1d"
    cache = tmp_path / "cache"
    agent = tmp_path / "leaky" / "agent.yaml"
    agent.parent.mkdir()
    agent.write_text(
        "name: a\nmodel:\n  provider: ${EARLY_KEY}\n  name: gpt-4o\n  temperature: ${EARLY_KEY}\n"
        "instructions: {inline: x}\ntest_cases:\n  - {name: c, input: q, ground_truth: [1]}\n",
        "utf-8",
    )
    opened = [{"jsonrpc": "2.0", "method": "initialized", "params": {}}, _open(agent)]
    env = {"EARLY_KEY": planted}
    # The server's own (the early one off; the start caches the initialize answer); the early
    # publish.
    for switch in (OFF, {}):
        seen = session(cache, opened, env={**env, **switch}, settle=not switch)
        early, late = split(seen)
        assert (early and not switch) or (late and switch)
        assert all(item["diagnostics"] for item in early + late), (switch, early, late)
        assert planted not in json.dumps(seen)
        assert "${EARLY_KEY}" in json.dumps(early + late)


def _settings_pushed(globs: list[str]) -> dict[str, Any]:
    settings = {"holodeck": {"debounceMs": 50, "agentGlobs": globs}}
    return {
        "jsonrpc": "2.0",
        "method": "workspace/didChangeConfiguration",
        "params": {"settings": settings},
    }


@pytest.mark.slow
def test_settings_pushed_before_the_didopen_keep_the_early_publish(tmp_path: Path) -> None:
    """Neovim 0.11 sends `workspace/didChangeConfiguration` between `initialized` and its
    didOpens: the early publish still comes, equal to the server's own. The server asks this
    client for its settings, and the answer comes after that didOpen was classified: by the
    default globs, not the pushed ones."""
    cache = tmp_path / "cache"
    agent = tmp_path / "pushed" / "agent.yaml"
    agent.parent.mkdir()
    agent.write_text(WIDE, encoding="utf-8")
    initialized = {"jsonrpc": "2.0", "method": "initialized", "params": {}}
    opened = [initialized, _settings_pushed(["other.yaml"]), _open(agent)]
    _, own = split(session(cache, opened, env=OFF))  # also caches the initialize answer
    early, _ = split(session(cache, opened, settle=True))
    assert [item["uri"] for item in early] == [agent.as_uri()]
    assert early[0] == own[0]


def test_pushed_settings_apply_at_once_only_for_a_client_the_server_cannot_ask() -> None:
    from holodeck_lsp.server.early_diagnostics import _take_pushed_settings
    from holodeck_lsp.server.early_handshake import EarlyStart
    from holodeck_lsp.server.settings import DEFAULT_AGENT_GLOBS, Settings

    pushed = _settings_pushed(["suite.yaml"])["params"]
    for workspace, globs in (({"configuration": True}, DEFAULT_AGENT_GLOBS), ({}, ("suite.yaml",))):
        early = EarlyStart(b"")
        early.params = {"capabilities": {"workspace": workspace}}
        settings = Settings()
        _take_pushed_settings(pushed, settings, early)
        assert settings.agent_globs == globs
