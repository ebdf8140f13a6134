"""The last run's pass rates with their 95 % intervals in the hover (server/runs/rate_hover.py),
from the real server after a replayed Run all of the shared suite (run_suite.py): `two-turns`
fails on its second turn, `single` passes."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from holodeck_lsp.engine.statistics.wilson import wilson_interval
from tests.server.runs.run_suite import CASES_LINE, SINGLE_LINE, TURN0_LINE, run, start


async def _hover(client: LanguageClient, uri: str, line: int, character: int) -> str:
    found = await client.text_document_hover_async(
        types.HoverParams(
            text_document=types.TextDocumentIdentifier(uri=uri),
            position=types.Position(line, character),
        )
    )
    if found is None:
        return ""
    contents = found.contents
    return contents.value if isinstance(contents, types.MarkupContent) else str(contents)


# CASES_LINE is the first case's line; the `test_cases:` key is the line above it.
async def test_suite_and_turn_index_rates_after_a_run(
    client: LanguageClient, tmp_path: Path
) -> None:
    uri = await start(client, tmp_path, trusted=True)
    assert "Last run" not in await _hover(client, uri, CASES_LINE - 1, 3)  # nothing ran yet
    await run(client, "holodeck.runAll", uri)
    suite = await _hover(client, uri, CASES_LINE - 1, 3)
    expected = wilson_interval(1, 2)
    assert "**Last run**: 1 of 2 cases passed" in suite
    assert f"50.0% [{expected.low * 100:.1f}, {expected.high * 100:.1f}]" in suite
    assert "95% Wilson interval" in suite
    # Turn 0 of both cases passed (the failure is turn 1's tool arguments).
    turn = await _hover(client, uri, TURN0_LINE, 12)
    assert "**Turn 0, last run**: passed in 2 of 2 cases" in turn
    assert "100.0% [" in turn
    # `single`'s input is turn 0 too: the same rate.
    assert "**Turn 0, last run**" in await _hover(client, uri, SINGLE_LINE + 1, 12)
