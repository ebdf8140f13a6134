"""The server and `holodeck-lsp --check --format json` report identical diagnostics (code,
range, severity, message) for every corpus file, includes included — they share the loader.
A utf-32 client receives code points, the unit `--check` reports in, so ranges compare as is."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import (
    SERVER_ENV,
    open_file,
    published,
    uri,
    wait_for,
)
from tests.server.shared_server import shared_client

# Two servers (untrusted, trusted) and two `--check` runs for the module: run by CI and by
# `pytest FILE`, not the loop.
pytestmark = pytest.mark.slow

CORPUS = Path(__file__).parent.parent / "corpus"
AGENTS = sorted(CORPUS.glob("*/agent.yaml"))
Expected = dict[str, list[tuple[Any, ...]]]


def is_trusted(agent: Path) -> bool:
    return (agent.parent / "TRUSTED").exists()


def check_json(agents: list[Path], trusted: bool) -> Expected:
    """`--check --format json` of `agents` in one process (the check of each file does not
    depend on the others given with it): every reported file's diagnostics, by URI."""
    command = [sys.executable, "-m", "holodeck_lsp", "--check", *map(str, agents)]
    completed = subprocess.run(
        [*command, "--format", "json", *(["--trust"] if trusted else [])],
        capture_output=True,
        text=True,
        env=SERVER_ENV,
        check=False,
    )
    report = json.loads(completed.stdout)
    return {
        uri(Path(entry["path"]).resolve()): sorted(
            (
                d["code"],
                d["range"]["start"]["line"],
                d["range"]["start"]["character"],
                d["range"]["end"]["line"],
                d["range"]["end"]["character"],
                {"error": 1, "warning": 2, "information": 3, "hint": 4}[d["severity"]],
                d["message"],
            )
            for d in entry["diagnostics"]
        )
        for entry in report["files"]
    }


@pytest.fixture(scope="module")
def checked() -> Expected:
    """What `--check` reports for the whole corpus: one run per trust setting."""
    found: Expected = {}
    for trusted in (False, True):
        found.update(check_json([a for a in AGENTS if is_trusted(a) == trusted], trusted))
    return found


@pytest.fixture(scope="module")
def workspace() -> Path:
    """The servers' workspace: the corpus itself (each test opens its own folder's agent
    file and closes it again: the documents are apart)."""
    return CORPUS


#: One server for the module per trust setting (tests/server/shared_server.py).
untrusted_client = shared_client(trusted=False, encodings=["utf-32"])
trusted_client = shared_client(trusted=True, encodings=["utf-32"])


@pytest.mark.parametrize("agent", AGENTS, ids=[agent.parent.name for agent in AGENTS])
async def test_server_matches_check(
    untrusted_client: LanguageClient,
    trusted_client: LanguageClient,
    checked: Expected,
    agent: Path,
) -> None:
    client = trusted_client if is_trusted(agent) else untrusted_client
    folder = uri(agent.parent) + "/"
    expected = {target: found for target, found in checked.items() if target.startswith(folder)}
    document = open_file(client, agent)

    def server_view() -> Expected:
        latest = {p.uri: p.diagnostics for p in published(client) if p.uri.startswith(folder)}
        return {
            target: sorted(
                (
                    d.code,
                    d.range.start.line,
                    d.range.start.character,
                    d.range.end.line,
                    d.range.end.character,
                    int(d.severity or 1),
                    d.message,
                )
                for d in items
            )
            for target, items in latest.items()
            if items or target in expected
        }

    # Publishes arrive one file at a time (and, trusted, the fast pass before the slow one),
    # the include's possibly last: wait for the state of every file to settle on the expected
    # one, then compare exactly.
    await wait_for(client, document)
    deadline = asyncio.get_running_loop().time() + 20
    while server_view() != expected and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.02)
    assert server_view() == expected
    client.text_document_did_close(
        types.DidCloseTextDocumentParams(text_document=types.TextDocumentIdentifier(uri=document))
    )
