"""A run's workDoneProgress (server/runs/progress.py): begin (cancellable), one report per turn,
end; cancelling the progress (or `holodeck.cancelRun`) cancels the run."""

from __future__ import annotations

import asyncio
import importlib.util
import json
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, wait_for
from tests.server.runs.run_suite import (
    AGENT,
    grade_turn_0_with,
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
    # Begun before the backend is built ("starting backend…"), then one report per turn with
    # the tokens and cost so far (12 tokens a turn, 10 prompt + 2 completion, at gpt-4o-mini's
    # 0.15 / 0.60 USD per million: 0.0000027 USD a turn).
    assert messages == [
        "starting backend…",
        "running 3 turns…",
        "two-turns turn 0 ✓ (1/3) · 12 tokens · 0.000003 USD",
        "two-turns turn 1 ✗ (2/3) · 24 tokens · 0.000005 USD",
        "single turn 0 ✓ (3/3) · 36 tokens · 0.000008 USD",
    ]
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message == "1 passed, 1 failed"
    # The begin has a percentage, so every report has one (a client may otherwise not show
    # the message), rising with the turns.
    percentages = [r.percentage for r in reports[:-1]]
    assert percentages == [0, 0, 0, 33, 66, 100]


@pytest.mark.parametrize("how", ["progress", "command"])
@pytest.mark.slow
async def test_cancelling_the_progress_cancels_the_run(
    client: LanguageClient, tmp_path: Path, how: str
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    await grade_turn_0_with(client, tmp_path, document_uri, "slow")
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
    # The case cut short is not run, counted apart from failed (engine/rollup.py) — unless
    # its turn 0 was graded first, and failed (the slow grader says no).
    failed = not turns[0]["passed"] and not turns[0]["skipped"]
    summary = answer["summary"]
    assert (summary["failed"], summary["not_run"]) == ((1, 0) if failed else (0, 1)), turns
    end = client.progress_reports[token][-1]
    assert isinstance(end, types.WorkDoneProgressEnd)
    counts = "1 failed" if failed else "0 failed, 1 not run"
    assert end.message == f"0 passed, {counts} (cancelled)"
    # The turn never sent is shown as not run (Information), not as a failure (Error).
    published = await wait_for(
        client, document_uri, lambda p: any("cancelled" in d.message for d in p.diagnostics)
    )
    severities = {d.severity for d in published.diagnostics if "cancelled" in d.message}
    assert severities == {types.DiagnosticSeverity.Information}


#: A function tool whose module takes as long to import as the test wants: while `gate`
#: exists (an SDK or a tool module that is slow to import).
GATED_TOOL = """import pathlib
import time

_gate = pathlib.Path(__file__).with_name("gate")
for _ in range(600):
    if not _gate.exists():
        break
    time.sleep(0.05)


def subtract(a: int, b: int) -> int:
    return a - b
"""


@pytest.mark.skipif(
    importlib.util.find_spec("semantic_kernel") is None, reason="the openai backend's SDK"
)
@pytest.mark.slow
async def test_progress_begins_before_the_backend_is_built(
    client: LanguageClient, tmp_path: Path
) -> None:
    """A live run whose backend takes long to build (here its tool module, held by a gate
    file) shows its progress — `starting backend…` — while the backend is still being built."""
    document_uri = await start(client, tmp_path, trusted=True, cassette=False)
    (tmp_path / "gated_tool.py").write_text(GATED_TOOL, encoding="utf-8")
    text = AGENT.replace(
        "  name: gpt-4o-mini\n",
        '  name: gpt-4o-mini\n  endpoint: "http://127.0.0.1:9/v1"\n',  # nothing listens
    ).replace(
        "evaluations:\n",
        "tools:\n  - name: subtract\n    type: function\n    description: a minus b\n"
        "    file: gated_tool.py\n    function: subtract\nevaluations:\n",
    )
    change_file(client, document_uri, text, version=2)
    params = await wait_for(client, document_uri, lambda p: p.version == 2)
    assert [d.message for d in params.diagnostics if d.severity == 1] == []
    gate = tmp_path / "gate"
    gate.touch()
    running = asyncio.ensure_future(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="holodeck.runCase", arguments=[document_uri, 1])
        )
    )

    def messages() -> list[str | None]:
        return [
            getattr(report, "message", None) or getattr(report, "title", None)
            for reports in client.progress_reports.values()
            for report in reports
        ]

    try:
        async with asyncio.timeout(30):
            while "starting backend…" not in messages():
                await asyncio.sleep(0.01)
        assert not running.done()  # the backend is still being built (the gate holds)
        assert messages() == ["HoloDeck: run single", "starting backend…"]
    finally:
        gate.unlink()
    answer = await asyncio.wait_for(running, 60)
    assert answer["status"] in ("done", "refused")  # no API key here: refused, and says so
    [reports] = client.progress_reports.values()
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)


#: A long run (20 turns and more: rate and ETA in the reports) replayed at once, but for its
#: last case, whose grader takes seconds: a stall with no turn finishing.
STALLED_CASES = 21
STALLING_GRADER = "import time\n\n\ndef slow(context):\n    time.sleep(3.2)\n    return True\n"


def _stalled_suite() -> tuple[str, dict[str, object]]:
    lines = [
        "name: runs",
        "model: {provider: openai, name: gpt-4o-mini}",
        'instructions: {inline: "Answer."}',
        "evaluations:",
        "  metrics:",
        "    - {type: standard, metric: equality}",
        "test_cases:",
    ]
    last = STALLED_CASES - 1
    lines += [f'  - {{name: c{n}, input: "q{n}", ground_truth: "1"}}' for n in range(last)]
    lines += [f'  - name: c{last}', f'    input: "q{last}"', '    ground_truth: "1"',
              '    evaluations: [{type: code, grader: "stalling:slow"}]']  # fmt: skip
    usage = {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12}
    turn = {
        "response": "1",
        "tool_calls": [],
        "error": None,
        "duration_ms": 5,
        "token_usage": usage,
    }
    cassette = {
        "format": "holodeck-cassette",
        "version": 1,
        "agent": "runs",
        "cases": [
            {"name": f"c{n}", "index": n, "turns": [{"input": f"q{n}", **turn}]}
            for n in range(STALLED_CASES)
        ],
    }
    return "\n".join(lines) + "\n", cassette


@pytest.mark.slow
async def test_a_stall_between_turns_still_moves_the_report(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    text, cassette = _stalled_suite()
    (tmp_path / "stalling.py").write_text(STALLING_GRADER, encoding="utf-8")
    (tmp_path / "run.cassette.json").write_text(json.dumps(cassette), encoding="utf-8")
    change_file(client, document_uri, text, version=2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    answer = await run(client, "holodeck.runAll", document_uri)
    assert answer.get("summary", {}).get("passed") == STALLED_CASES, answer
    [reports] = client.progress_reports.values()
    messages = [r.message or "" for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    # After the 20th turn nothing finishes for 3 s: the heartbeat sends that report again
    # with the rate falling and the time left growing, each a new message.
    stalled = [m for m in messages if m.startswith("c19 turn 0 ✓ (20/21)")]
    assert len(stalled) >= 3 and len(set(stalled)) == len(stalled), messages
    assert "turns/min" in stalled[-1] and "ETA" in stalled[-1]
    assert messages[-1].startswith("c20 turn 0 ✓ (21/21)")
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
