"""Regression marks against the baseline (server/runs/regressions.py, baseline_sides.py,
compare_baseline.py, editor_request.py), from the real server on runs stored by the real CLI:
`holodeck-lsp run --replay` of the suite's cassette and of a "bad" one (stored_history.py's
make_history, made once and copied per test): run 1 bad (tagged `bad`), run 2 good, run 3 bad."""

from __future__ import annotations

import asyncio
import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import SERVER_ENV
from tests.server.runs.run_suite import (
    CASES_LINE,
    SINGLE_LINE,
    TURN0_LINE,
    TURN1_LINE,
    lenses,
    run,
    start,
)
from tests.server.runs.stored_history import bad_cassette, cli, make_history, stored_ids
from tests.server.shared_server import own_client

pytestmark = pytest.mark.slow  # the CLI runs three times per history, a server per test

PLANTED = "sk-planted-baseline-4f2a9c1e7d"
PLANTED_ENV = {**SERVER_ENV, "EDITOR_BASELINE_TOKEN": PLANTED}


@pytest.fixture(scope="module")
def history(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_history(tmp_path_factory.mktemp("history"), f" {PLANTED}")


@pytest.fixture
def suite(history: Path, tmp_path: Path) -> Path:
    root = tmp_path / "suite"
    shutil.copytree(history, root)
    return root


async def _start(client: LanguageClient, root: Path, **settings: Any) -> str:
    # `start` writes the agent again (the same text): the stored runs stay the agent's.
    return await start(client, root, trusted=True, settings=settings)


async def _hover(client: LanguageClient, uri: str, line: int) -> str:
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line, 10),
        )
    )
    if found is None:
        return ""
    contents = found.contents
    return contents.value if isinstance(contents, types.MarkupContent) else str(contents)


async def _set_baseline(client: LanguageClient, baseline: str | None) -> None:
    """Change the setting as an editor does (the server asks for the section again) and wait
    until the server has it (the notification has no answer)."""
    client.set_configuration(
        {"cassettePath": "run.cassette.json", "baseline": baseline}, section="holodeck"
    )
    client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings={}))
    await asyncio.sleep(0.5)


def _titles(found: list[tuple[int, str, list[Any]]]) -> list[tuple[int, str]]:
    return [(line, title) for line, title, _ in found]


async def test_lenses_and_hover_mark_what_regressed_against_the_previous_run(
    client: LanguageClient, suite: Path
) -> None:
    ids = stored_ids(suite)
    uri = await _start(client, suite)
    # No run in this session: head is the latest stored run (bad), base the one before (good).
    assert _titles(await lenses(client, uri)) == [
        (10, f"▶ Run all · ⇣ 2 regressed vs {ids[1]}"),
        (CASES_LINE, "▶ Run case · ⇣ 1 regressed"),
        (TURN0_LINE, "▶ Run turn 0 · ⇣ regressed"),
        (TURN1_LINE, "▶ Run turn 1"),  # failed in both runs: no mark
        (SINGLE_LINE, "▶ Run case · ⇣ regressed"),
        (SINGLE_LINE, "▶ Run turn 0 · ⇣ regressed"),
    ]
    text = await _hover(client, uri, TURN0_LINE)
    assert "**⇣ Regressed**" in text and f"run {ids[1]}" in text
    assert "before: ✓ passed → now: ✗ failed" in text
    assert "numeric" in text and "1.00 → 0.00" in text
    assert await _hover(client, uri, TURN1_LINE) == "" or "Regressed" not in await _hover(
        client, uri, TURN1_LINE
    )
    discovered = await client.protocol.send_request_async("holodeck/discoverTests", {"uri": uri})
    assert discovered.baseline == ids[1]
    assert [turn.regressed for turn in discovered.cases[0].turns] == [True, False]
    assert discovered.cases[0].regressions == 1


async def test_the_baseline_setting_chooses_the_run_compared_with(
    client: LanguageClient, suite: Path
) -> None:
    uri = await _start(client, suite, baseline="bad")
    # bad (run 1) against bad (run 3): nothing regressed.
    assert all("regressed" not in title for _, title in _titles(await lenses(client, uri)))
    answer = await run(client, "holodeck.compareWithBaseline", uri)
    assert answer["status"] == "done" and answer["regressions"] == 0
    assert answer["base"] == "bad"
    # Back to the previous run: the marks come back.
    await _set_baseline(client, None)
    answer = await run(client, "holodeck.compareWithBaseline", uri)
    assert answer["regressions"] == 2
    assert any("⇣ regressed" in title for _, title in _titles(await lenses(client, uri)))
    markdown = answer["markdown"]
    assert "Regressions" in markdown and "two-turns" in markdown and "single" in markdown


async def test_compare_answers_markdown_and_the_page(client: LanguageClient, suite: Path) -> None:
    uri = await _start(client, suite)
    page = await run(client, "holodeck.compareWithBaseline", uri, {"format": "html"})
    assert page["status"] == "done" and page["html"].startswith("<!DOCTYPE html>")
    assert '"baseline"' in page["html"] or "baseline" in page["html"]
    # The baseline run's turns ride along for the conversation view (docs/reports.md).
    data = json.loads(page["html"].split('id="report-data">', 1)[1].split("</script>", 1)[0])
    base_cases = [case["name"] for run_ in data["base_runs"] for case in run_["cases"]]
    assert base_cases == [case["name"] for case in data["runs"][0]["cases"]]
    bad = await run(client, "holodeck.compareWithBaseline", uri, {"format": "pdf"})
    assert bad["status"] == "refused" and "format" in bad["reason"]


async def test_editor_runs_are_stored_and_become_the_current_side(
    client: LanguageClient, suite: Path
) -> None:
    uri = await _start(client, suite)
    before = stored_ids(suite)
    done = await run(client, "holodeck.runAll", uri)  # the good cassette
    assert done["status"] == "done"
    after = stored_ids(suite)
    assert len(after) == len(before) + 1  # a Run all is stored
    # Head is this session (good), base the latest stored run before it (bad): fixes only.
    assert all("regressed" not in title for _, title in _titles(await lenses(client, uri)))
    assert "**⇡ Fixed**" in await _hover(client, uri, TURN0_LINE)
    # A single turn is not stored (a partial run would read as removed cases in `compare`).
    await run(client, "holodeck.runTurn", uri, 0, 0)
    assert len(stored_ids(suite)) == len(after)
    # The session's single-turn result on a bad cassette is now compared with the stored run
    # before this session's Run all (bad, run 3), so nothing regresses; against the session's
    # own stored Run all (tag it), it does.
    (suite / "run.cassette.json").write_text(json.dumps(bad_cassette()))
    await run(client, "holodeck.runTurn", uri, 0, 0)
    cli(suite, "runs", "agent.yaml", "--tag", "good", after[-1])
    await _set_baseline(client, "good")
    titles = _titles(await lenses(client, uri))
    assert (TURN0_LINE, "✗ Run turn 0 · ⇣ regressed") in titles
    assert (SINGLE_LINE, "✓ Run turn 0") in titles  # not run again: still good


async def test_no_history_no_marks_and_the_command_says_why(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = await start(client, tmp_path, trusted=True, settings={"saveRuns": False})
    assert all("regressed" not in title for _, title in _titles(await lenses(client, uri)))
    answer = await run(client, "holodeck.compareWithBaseline", uri)
    assert answer["status"] == "none" and "no stored run" in answer["reason"]
    await run(client, "holodeck.runAll", uri)
    assert not (tmp_path / ".holodeck" / "runs").exists()  # saveRuns: false
    assert "Regressed" not in await _hover(client, uri, TURN0_LINE)


async def test_an_unknown_baseline_tag_is_a_reason_not_an_error(
    client: LanguageClient, suite: Path
) -> None:
    uri = await _start(client, suite, baseline="nope")
    assert all("regressed" not in title for _, title in _titles(await lenses(client, uri)))
    answer = await run(client, "holodeck.compareWithBaseline", uri)
    assert answer["status"] == "none"
    assert "holodeck.baseline = 'nope'" in answer["reason"] and "tags: bad" in answer["reason"]


planted_client = own_client(PLANTED_ENV)


async def test_a_secret_in_a_stored_run_is_masked_in_hover_and_command(
    planted_client: LanguageClient, suite: Path
) -> None:
    client = planted_client
    latest = stored_ids(suite)[-1]
    stored = (suite / ".holodeck" / "runs" / latest / "report.json").read_text()
    assert PLANTED in stored  # stored by runs that did not know it was a secret
    uri = await _start(client, suite)
    text = await _hover(client, uri, TURN1_LINE)  # failing in both, the reason quotes it
    assert "Still failing, for a different reason" in text
    assert PLANTED not in text and "***" in text
    for form in ("markdown", "html"):
        answer = await run(client, "holodeck.compareWithBaseline", uri, {"format": form})
        assert answer["status"] == "done"
        assert PLANTED not in json.dumps(answer) and "***" in answer[form]
