"""`holodeck/discoverTests` (server/runs/test_discovery.py): cases and turns with their ranges,
for clients with a Testing view."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from pytest_lsp import LanguageClient

from tests.server.lsp_client import TIMEOUT, open_file
from tests.server.runs.run_suite import (
    CASES_LINE,
    SINGLE_LINE,
    TURN0_LINE,
    TURN1_LINE,
    start,
)


async def discover(client: LanguageClient, document_uri: str) -> Any:
    return await asyncio.wait_for(
        client.protocol.send_request_async("holodeck/discoverTests", {"uri": document_uri}),
        TIMEOUT,
    )


async def test_discover_tests_lists_cases_and_turns_with_ranges(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=False)
    found = await discover(client, document_uri)
    assert found.uri == document_uri and found.agentUri == document_uri
    assert found.range.start.line == CASES_LINE - 1  # `test_cases:`
    first, second = found.cases
    assert (first.index, first.name, second.index, second.name) == (0, "two-turns", 1, "single")
    assert (first.range.start.line, first.range.end.line) == (CASES_LINE, SINGLE_LINE)
    assert [(t.index, t.range.start.line, t.inputRange.start.line) for t in first.turns] == [
        (0, TURN0_LINE, TURN0_LINE),
        (1, TURN1_LINE, TURN1_LINE),
    ]
    # Each turn's input as written: the Testing view labels the turn with it.
    assert [t.input for t in first.turns] == ["q0", "q1"]
    [single] = second.turns
    assert single.input == "q2"
    assert (single.index, single.range.start.line, single.inputRange.start.line) == (
        0,
        SINGLE_LINE,
        SINGLE_LINE + 1,
    )
    (tmp_path / "notes.yaml").write_text("a: 1\n", encoding="utf-8")
    assert await discover(client, open_file(client, tmp_path / "notes.yaml")) is None
