"""Running from the editor end to end: a run command on a replayed cassette shown inline (the
`holodeck/runResult` notification, `holodeck-run` diagnostics, inlay hints, lens titles), and an
edit arriving during a run. Each run module's own behaviour is tested in tests/server/runs/
(test_<module>.py), on the suite of tests/server/runs/run_suite.py."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, wait_for
from tests.server.runs.run_suite import (
    AGENT,
    ARG_B_LINE,
    CASES_LINE,
    SINGLE_LINE,
    TURN0_LINE,
    TURN1_LINE,
    hints,
    lenses,
    record_results,
    run,
    run_items,
    start,
)


async def test_run_case_shows_results_inline(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    received = record_results(client)
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer["status"] == "done"
    assert answer["summary"]["failed"] == 1
    [result] = answer["results"]
    assert [turn["passed"] for turn in result["turns"]] == [True, False]

    # The custom notification carries the TestResult JSON.
    assert len(received) == 1
    notified = received[0]
    assert notified.uri == document_uri and notified.caseIndex == 0
    assert notified.result.test_name == "two-turns"

    # Diagnostics: the checker's (none) plus the run's, at the failing argument's line.
    params = await wait_for(client, document_uri, lambda p: bool(run_items(p)))
    [diagnostic] = run_items(params)
    assert diagnostic.range.start.line == ARG_B_LINE
    assert "arg 'b'" in diagnostic.message
    assert diagnostic.severity == types.DiagnosticSeverity.Error

    assert await hints(client, document_uri) == [
        (TURN0_LINE, "✓ 10 · numeric 1.00 · 0.0 s"),
        (TURN1_LINE, "✗ 5 · numeric 1.00 · 0.0 s"),
    ]
    titles = [(line, title) for line, title, _ in await lenses(client, document_uri)]
    assert titles == [
        (10, "▶ Run all"),
        (CASES_LINE, "✗ Run case (1/2 turns)"),
        (CASES_LINE, "↻ Re-grade"),
        (TURN0_LINE, "✓ Run turn 0"),
        (TURN1_LINE, "✗ Run turn 1"),
        (SINGLE_LINE, "▶ Run case"),
        (SINGLE_LINE, "▶ Run turn 0"),
    ]


async def test_an_edit_during_a_run_does_not_crash(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    running = asyncio.ensure_future(run(client, "holodeck.runCase", document_uri, 0))
    # Edit once the run has begun (its progress began: the case's text has been taken).
    while not any(client.progress_reports.values()):
        await asyncio.sleep(0.001)
    change_file(client, document_uri, AGENT.replace('"q1"', '"q1 edited"'), version=2)
    answer = await running
    assert answer["status"] == "done"
    await wait_for(client, document_uri, lambda p: p.version == 2)
    # The run's results are for the old text of the case: never shown. When the edit is
    # checked after the run ended, the case is re-graded from its answers, and the edited
    # turn says that its recorded answer was to another question.
    shown = await hints(client, document_uri)
    assert all(label.endswith("re-graded from transcript") for _, label in shown)
    if shown:
        assert [label[0] for _, label in shown] == ["✓", "✗"]
        await wait_for(
            client,
            document_uri,
            lambda p: any("input differs" in d.message for d in run_items(p)),
        )
    else:
        # The re-grade may land between the hints and the lenses (which read the run history
        # off the loop first): then the lens shows it, never the stale run.
        title = [title for _, title, _ in await lenses(client, document_uri)][1]
        assert title == "▶ Run case" or title.endswith("(re-graded)")
