"""The commands without a run (server/runs/commands.py): `holodeck.lastRunReport` (Markdown
and HTML) and `holodeck.cancelRun`, before and after a run."""

from __future__ import annotations

import json
import re
from pathlib import Path

from pytest_lsp import LanguageClient

from tests.server.runs.run_suite import (
    AGENT,
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


async def test_last_run_report_as_html(client: LanguageClient, tmp_path: Path) -> None:
    """The page of the last run, with each case and turn located in the document as it is now
    (what the editor's webview reveals on a click); a bad format is refused, naming it."""
    document_uri = await start(client, tmp_path, trusted=True)
    html = {"format": "html"}
    assert (await run(client, "holodeck.lastRunReport", document_uri, html))["status"] == "none"
    refused = await run(client, "holodeck.lastRunReport", document_uri, {"format": "pdf"})
    assert refused["status"] == "refused" and "'pdf'" in refused["reason"]
    await run(client, "holodeck.runAll", document_uri)
    answer = await run(client, "holodeck.lastRunReport", document_uri, html)
    assert answer["status"] == "done" and "markdown" not in answer
    page = answer["html"]
    assert page.startswith("<!DOCTYPE html>") and "default-src 'none'" in page
    embedded = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page)
    assert embedded is not None
    data = json.loads(embedded[1])
    cases = data["runs"][0]["cases"]
    assert [c["name"] for c in cases] == ["two-turns", "single"]
    lines = AGENT.splitlines()
    two, single = cases
    assert lines[two["loc"][0]].strip() == "- name: two-turns"
    assert [lines[t["loc"][0]].strip() for t in two["turns"]] == ['- input: "q0"', '- input: "q1"']
    assert lines[single["loc"][0]].strip() == "- name: single"
    assert single["turns"][0]["loc"] == single["loc"]
    # Markdown stays the default.
    assert "markdown" in await run(client, "holodeck.lastRunReport", document_uri)
