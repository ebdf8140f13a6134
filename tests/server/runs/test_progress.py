"""A run's workDoneProgress (server/runs/progress.py): begin (cancellable), one report per turn,
end; cancelling the progress (or `holodeck.cancelRun`) cancels the run."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, wait_for
from tests.server.runs.run_suite import (
    AGENT,
    SLOW_GRADER,
    lenses,
    run,
    start,
)


async def test_run_all_and_progress(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    answer = await run(client, "holodeck.runAll", document_uri)
    assert answer["summary"]["passed"] == 1 and answer["summary"]["failed"] == 1
    titles = [title for _, title, _ in await lenses(client, document_uri)]
    assert titles[0] == "✗ Run all (1/2 cases)"
    assert titles[5:] == ["✓ Run case", "↻ Re-grade", "✓ Run turn 0"]
    [reports] = client.progress_reports.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable
    messages = [r.message for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    # Begun before the backend is built ("starting backend…"), then one report per turn.
    assert messages == [
        "starting backend…",
        "running 3 turns…",
        "two-turns turn 0 ✓ (1/3)",
        "two-turns turn 1 ✗ (2/3)",
        "single turn 0 ✓ (3/3)",
    ]
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message == "1 passed, 1 failed"


@pytest.mark.parametrize("how", ["progress", "command"])
@pytest.mark.slow
async def test_cancelling_the_progress_cancels_the_run(
    client: LanguageClient, tmp_path: Path, how: str
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "slow_grader.py").write_text(SLOW_GRADER, encoding="utf-8")
    text = AGENT.replace(
        '        ground_truth: "10"\n',
        '        ground_truth: "10"\n        evaluations:\n'
        "          - type: code\n            grader: slow_grader:slow\n",
    )
    change_file(client, document_uri, text, version=2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    running = asyncio.ensure_future(run(client, "holodeck.runCase", document_uri, 0))
    while not any(client.progress_reports.values()):
        await asyncio.sleep(0.001)
    [token] = client.progress_reports
    if how == "progress":
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    else:  # `holodeck.cancelRun`, for clients that show runs their own way (a Testing view)
        assert await run(client, "holodeck.cancelRun", document_uri) == {"status": "cancelling"}
    answer = await running
    assert answer["status"] == "cancelled"
    turns = answer["results"][0]["turns"]
    assert turns[1]["skipped"] and "cancelled" in turns[1]["errors"][0]
    assert isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd)
