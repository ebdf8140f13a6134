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
from pytest_lsp import LanguageClient

from tests.server.lsp_client import SERVER_ENV, initialize, open_file, published, uri, wait_for

# A server process per test over stdio, many tests: run by CI and by `pytest FILE`, not the loop.
pytestmark = pytest.mark.slow

CORPUS = Path(__file__).parent.parent / "corpus"
AGENTS = sorted(CORPUS.glob("*/agent.yaml"))


def check_json(agent: Path, trusted: bool) -> dict[str, list[tuple[Any, ...]]]:
    command = [sys.executable, "-m", "holodeck_lsp", "--check", str(agent), "--format", "json"]
    completed = subprocess.run(
        [*command, *(["--trust"] if trusted else [])],
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


@pytest.mark.parametrize("agent", AGENTS, ids=[agent.parent.name for agent in AGENTS])
async def test_server_matches_check(client: LanguageClient, agent: Path) -> None:
    trusted = (agent.parent / "TRUSTED").exists()
    await initialize(client, root=agent.parent, trusted=trusted, encodings=["utf-32"])
    expected = check_json(agent, trusted)
    document = open_file(client, agent)

    def server_view() -> dict[str, list[tuple[Any, ...]]]:
        latest = {p.uri: p.diagnostics for p in published(client)}
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
