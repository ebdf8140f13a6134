"""The editor sees a run in turn order too: the real server replays the sample (its judged
turns' verdicts arrive out of order, as the CLI's do) and its progress reports name the
turns of each case in turn order, case after case, the count going up by one; the
`holodeck/runResult` notifications (the VS Code Testing view's source) come in case order."""

from __future__ import annotations

import asyncio
import re
import shutil
from pathlib import Path

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import initialize, open_file, wait_for
from tests.server.runs.run_suite import record_results

pytestmark = pytest.mark.slow

SAMPLE = Path(__file__).resolve().parents[3] / "sample" / "financial-assistant"
#: `name turn N ✓ (done/34)`, then the run's totals (` · 12 turns/min · …`).
_REPORT = re.compile(r"^(\S+) turn (\d+) [✓✗] \((\d+)/34\)(?: · .*)?$")


async def test_the_editor_hears_turns_in_turn_order(client: LanguageClient, tmp_path: Path) -> None:
    folder = tmp_path / "financial-assistant"
    shutil.copytree(SAMPLE, folder, ignore=shutil.ignore_patterns(".holodeck", "__pycache__"))
    await initialize(
        client, root=folder, trusted=True, diagnostics="push",
        settings={"cassettePath": "cassettes/oracle.json"}, progress=True,
    )  # fmt: skip
    received = record_results(client)
    document_uri = open_file(client, folder / "agent.yaml")
    await wait_for(client, document_uri)
    await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="holodeck.runAll", arguments=[document_uri])
        ),
        240,
    )
    [reports] = client.progress_reports.values()
    messages = [r.message or "" for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    matched = [m for message in messages if (m := _REPORT.match(message))]
    # Between turns the heartbeat sends the last report again (its totals brought up to date):
    # a repeat names the same turn and count as the report before it.
    said = [m.groups()[:3] for m in matched]
    turns = [m for i, m in enumerate(matched) if i == 0 or said[i] != said[i - 1]]
    assert [int(m[3]) for m in turns] == list(range(1, 35))  # one report per turn, counted
    seen: list[str] = []
    by_case: dict[str, list[int]] = {}
    for match in turns:
        if not seen or seen[-1] != match[1]:
            seen.append(match[1])
        by_case.setdefault(match[1], []).append(int(match[2]))
    assert len(seen) == len(by_case) == 10  # each case's turns together: no interleaving
    for case, indexes in by_case.items():
        assert indexes == list(range(len(indexes))), case
    assert [note.caseIndex for note in received] == list(range(10))
    assert [note.result.test_name for note in received] == seen
