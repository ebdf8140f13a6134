"""The run code lenses (server/runs/lenses.py), from the real server: `▶ Run all`, `▶ Run case`,
`▶ Run turn N` with each command's arguments."""

from __future__ import annotations

from pathlib import Path

from pytest_lsp import LanguageClient

from tests.server.runs.run_suite import (
    CASES_LINE,
    SINGLE_LINE,
    TURN0_LINE,
    TURN1_LINE,
    lenses,
    start,
)


async def test_lenses_offer_run_all_cases_and_turns(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    assert await lenses(client, document_uri) == [
        (10, "▶ Run all", [document_uri]),
        (CASES_LINE, "▶ Run case", [document_uri, 0]),
        (TURN0_LINE, "▶ Run turn 0", [document_uri, 0, 0]),
        (TURN1_LINE, "▶ Run turn 1", [document_uri, 0, 1]),
        (SINGLE_LINE, "▶ Run case", [document_uri, 1]),
        (SINGLE_LINE, "▶ Run turn 0", [document_uri, 1, 0]),
    ]
