"""The diagnostics engine's check listeners (check_listeners.py: re-grade on edit, the run
lenses) hear of versions in order: the opened version's check made before the server started
(server/early_diagnostics.py) is told once the settings are read, and an edit's check accepted
meanwhile is told after it — told first, the opened version would come after it and leave
re-grade on edit on the older text (seen in CI; issue 37). Driven on the real server object and
the engine's listeners, the settings' arrival held back."""

from __future__ import annotations

import asyncio
from pathlib import Path

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.features.diagnostics.analysis import Analysis
from holodeck_lsp.server.features.diagnostics.engine import DiagnosticsEngine

URI = "file:///project/agent.yaml"


def _analysis(version: int) -> Analysis:
    return Analysis(Path("/project/agent.yaml"), version, False, [], {}, [])


async def _heard(edits: list[int]) -> list[int | None]:
    server = HolodeckServer()
    engine = DiagnosticsEngine(server)
    heard: list[int | None] = []
    engine.check_listeners.append(lambda uri, analysis: heard.append(analysis.version))
    engine.told.tell_when_settled(URI, _analysis(1))
    await asyncio.sleep(0)  # the opened version waits on the settings now
    for version in edits:  # edits' checks accepted meanwhile
        engine.told.tell_in_order(URI, _analysis(version))
    assert heard == []
    server.settings_were_read()
    await asyncio.wait_for(engine.told.pending[URI], 5)  # the last tell, after the others
    return heard


async def test_edits_checked_while_the_settings_are_read_are_told_after_the_opened_one() -> None:
    assert await _heard([2, 3]) == [1, 2, 3]


async def test_the_opened_version_alone_is_told_once_the_settings_are_in() -> None:
    assert await _heard([]) == [1]
