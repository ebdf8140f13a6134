"""`holodeck/discoverTests`: the cases and turns of a document, with their ranges, for clients
that show them as tests (the VS Code extension's Testing view).

Request params: `{"uri": "<document uri>"}`. Result: `null` when the document is not an agent
(or an included test-case file of one) or does not parse; otherwise

    {"uri", "agentUri", "range",          # the `test_cases:` key (an include: its first line)
     "cases": [{"index", "name", "range",
                "turns": [{"index", "range", "inputRange", "input"}]}]}

`range` of a case or turn is the whole item (its first line to its last); `inputRange` is the
turn's `input: …` (where run results are reported), `input` its text as written (null when
it is not a plain string) — the turn's label. Indexes are the ones the run commands take.
A single-turn case has one turn, index 0, whose range is the case's.
A case with a simulated user has `simulatedRange`, its `simulated_user` key (null otherwise):
the turns its user generates are written nowhere, so a client's items for them point there.

Against the baseline run (`regressions`): each turn's `regressed` (true when it passed, or
passed more often, in the baseline and fails now — for the input written now), each case's
`regressions` (how many of its turns), and `baseline` (what it was compared with: a tag or a
run id; null when nothing is compared).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.guard import answer_or

if TYPE_CHECKING:
    from holodeck_lsp.server.documents.positions import PositionConverter
    from holodeck_lsp.server.runs.run_locations import Point
    from holodeck_lsp.server.runs.state import Runner

DISCOVER_TESTS: Final = "holodeck/discoverTests"


def _position(converter: PositionConverter, point: Point) -> dict[str, int]:
    line, character = converter.to_client(*point)
    return {"line": line, "character": character}


def _range(converter: PositionConverter, start: Point, end: Point) -> dict[str, Any]:
    return {"start": _position(converter, start), "end": _position(converter, end)}


async def discover(server: HolodeckServer, runner: Runner, uri: str) -> dict[str, Any] | None:
    from holodeck_lsp.server.runs.regressions import regressions_of
    from holodeck_lsp.server.runs.run_locations import locate_suite

    agent_uri = runner.agent_of(uri)
    if agent_uri is None:
        return None
    parsed = await parsed_documents(server).get(uri)
    suite = locate_suite(parsed.document.root) if parsed is not None else None
    if parsed is None or suite is None:
        return None
    converter = parsed.converter
    view = await regressions_of(runner).view(uri, parsed)
    baseline = view.comparison.base.label if view.comparison is not None else None
    return {
        "uri": uri,
        "agentUri": agent_uri,
        "range": _range(converter, suite.key, suite.key),
        "baseline": baseline,
        "cases": [
            {
                "index": case.index,
                "name": case.name,
                "range": _range(converter, case.start, case.end),
                "regressions": sum(view.regressed(case, turn) for turn in case.turns),
                # Where the Testing view's generated items of a simulated case point.
                "simulatedRange": (
                    _range(converter, *case.simulated) if case.simulated is not None else None
                ),
                "turns": [
                    {
                        "index": turn.index,
                        "range": _range(converter, turn.start, turn.end or case.end),
                        "inputRange": _range(converter, *turn.input),
                        "input": turn.input_text,
                        "regressed": view.regressed(case, turn),
                    }
                    for turn in case.turns
                ],
            }
            for case in suite.cases
        ],
    }


def register(server: HolodeckServer, runner: Runner) -> None:
    @server.feature(DISCOVER_TESTS)
    @answer_or(None, "discoverTests")
    async def discover_tests(params: Any) -> dict[str, Any] | None:
        uri = getattr(params, "uri", None)
        if not isinstance(uri, str):
            return None
        return await discover(server, runner, uri)
