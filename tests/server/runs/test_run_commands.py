"""The commands without a run (server/runs/commands.py): `holodeck.lastRunReport` and
`holodeck.cancelRun`, before and after a run."""

from __future__ import annotations

from pathlib import Path

from pytest_lsp import LanguageClient

from tests.server.runs.run_suite import (
    run,
    start,
)


async def test_last_run_report_and_cancel_run(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    assert (await run(client, "holodeck.lastRunReport", document_uri))["status"] == "none"
    assert (await run(client, "holodeck.cancelRun", document_uri)) == {"status": "idle"}
    await run(client, "holodeck.runAll", document_uri)
    report = await run(client, "holodeck.lastRunReport", document_uri)
    assert report["status"] == "done"
    assert "two-turns" in report["markdown"] and "single" in report["markdown"]
