"""Editor runs go through the run lifecycle (runner/lifecycle/, server/runs/editor_request.py):
a "Run all" is journaled, so a cancelled one is unfinished and the real console script's
`run --resume ID` runs the rest; every editor run but a re-grade counts for
`run --last-failed`. The real server over stdio, then the installed `holodeck-lsp` script."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, installed_server, wait_for
from tests.server.runs.run_suite import AGENT, SLOW_GRADER, run, start

pytestmark = pytest.mark.slow  # a server per test, then the CLI

#: The suite with both cases at once: `single` finishes (and is journaled) while turn 0 of
#: `two-turns` is graded by a grader that takes 1.5 s, and fails.
SLOW_SUITE = AGENT.replace(
    "evaluations:\n", "execution:\n  parallel_test_cases: 2\nevaluations:\n", 1
).replace(
    '        ground_truth: "10"\n',
    '        ground_truth: "10"\n        evaluations:\n'
    "          - type: code\n            grader: slow_grader:slow\n",
)


def _cli(root: Path, *arguments: str) -> subprocess.CompletedProcess[str]:
    """The installed console script in `root`; exit 0 or 1 (a run with failures) expected."""
    done = subprocess.run(
        [installed_server(), *arguments],
        cwd=root,
        env={**os.environ, "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return done


def _runs(root: Path) -> list[dict[str, object]]:
    listing = json.loads(_cli(root, "runs", "--json", "agent.yaml").stdout)
    runs: list[dict[str, object]] = listing["runs"]
    return runs


async def _until_single_finished(client: LanguageClient) -> None:
    while not any(
        isinstance(report, types.WorkDoneProgressReport) and "single" in (report.message or "")
        for reports in client.progress_reports.values()
        for report in reports
    ):
        await asyncio.sleep(0.01)


async def test_a_cancelled_run_all_is_finished_by_run_resume(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "slow_grader.py").write_text(SLOW_GRADER, encoding="utf-8")
    (tmp_path / "agent.yaml").write_text(SLOW_SUITE, encoding="utf-8")
    change_file(client, document_uri, SLOW_SUITE, version=2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    running = asyncio.ensure_future(run(client, "holodeck.runAll", document_uri))
    await asyncio.wait_for(_until_single_finished(client), 30)
    assert await run(client, "holodeck.cancelRun", document_uri) == {"status": "cancelling"}
    answer = await running
    assert answer["status"] == "cancelled"
    [stored] = _runs(tmp_path)
    # Unfinished: stopped with a case session left (`two-turns` was cut short), journaled.
    assert stored["interrupted"] is True and stored["stopped"] == "interrupted"
    assert (tmp_path / str(stored["path"]) / "journal.jsonl").is_file()

    resumed = _cli(tmp_path, "run", "--resume", str(stored["id"]))
    assert f"resuming run {stored['id']}: 1 of 2 case sessions left" in resumed.stdout
    [finished] = _runs(tmp_path)
    assert finished["id"] == stored["id"] and finished["interrupted"] is False
    assert finished["cases"] == {"passed": 1, "total": 2}


async def test_an_editor_run_counts_for_last_failed(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    answer = await run(client, "holodeck.runAll", document_uri)
    assert answer["summary"]["failed"] == 1  # turn 1 of `two-turns`
    again = _cli(tmp_path, "run", "agent.yaml", "--last-failed", "--replay", "run.cassette.json")
    assert "running the 1 case(s) that failed last time" in again.stderr
    assert again.stdout.startswith("running agent.yaml: 1 case, 2 turns")
    # A re-grade sends nothing to the agent: it does not count; a "Run case" does.
    await run(client, "holodeck.runCase", document_uri, 1)
    again = _cli(tmp_path, "run", "agent.yaml", "--last-failed", "--replay", "run.cassette.json")
    assert "no case failed last time: running every case" in again.stderr
