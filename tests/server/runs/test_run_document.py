"""What a document runs (server/runs/run_document.py): an include's cases run from the include,
with results on its lines; unsaved include edits refuse the run."""

from __future__ import annotations

from pathlib import Path

from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, open_file, wait_for
from tests.server.runs.run_suite import (
    AGENT,
    ARG_B_LINE,
    CASES_LINE,
    SINGLE_LINE,
    TURN0_LINE,
    TURN1_LINE,
    hints,
    lenses,
    run,
    run_items,
    start,
)

INCLUDED_AGENT = AGENT.split("test_cases:")[0] + "test_cases_file: cases.yaml\n"


INCLUDED_CASES = "\n".join(line[2:] for line in AGENT.split("test_cases:\n")[1].splitlines())


async def test_cases_in_an_include_run_from_the_include(
    client: LanguageClient, tmp_path: Path
) -> None:
    agent_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "agent.yaml").write_text(INCLUDED_AGENT, encoding="utf-8")
    change_file(client, agent_uri, INCLUDED_AGENT, version=2)
    cases = tmp_path / "cases.yaml"
    cases.write_text(INCLUDED_CASES + "\n", encoding="utf-8")
    await wait_for(client, agent_uri, lambda p: p.version == 2)
    include_uri = open_file(client, cases)
    titles = [(line, title) for line, title, _ in await lenses(client, include_uri)]
    shift = CASES_LINE  # the include's lines are the agent's, from its first case on
    assert titles == [
        (0, "▶ Run all"),
        (0, "▶ Run case"),
        (TURN0_LINE - shift, "▶ Run turn 0"),
        (TURN1_LINE - shift, "▶ Run turn 1"),
        (SINGLE_LINE - shift, "▶ Run case"),
        (SINGLE_LINE - shift, "▶ Run turn 0"),
    ]
    answer = await run(client, "holodeck.runAll", include_uri)
    assert answer["status"] == "done" and answer["summary"]["failed"] == 1
    params = await wait_for(client, include_uri, lambda p: bool(run_items(p)))
    [failure] = run_items(params)
    assert failure.range.start.line == ARG_B_LINE - shift
    assert [line for line, _ in await hints(client, include_uri)] == [
        TURN0_LINE - shift,
        TURN1_LINE - shift,
        SINGLE_LINE + 1 - shift,
    ]
    # Unsaved edits: the run would read other cases from disk than the ones shown.
    change_file(client, include_uri, INCLUDED_CASES.replace('"q2"', '"q3"'), version=2)
    answer = await run(client, "holodeck.runCase", include_uri, 1)
    assert answer["status"] == "refused" and "save cases.yaml" in answer["reason"]
