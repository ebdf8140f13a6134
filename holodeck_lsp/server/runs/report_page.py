"""`holodeck.lastRunReport [uri, {"format": "html"}]`: the document's last run as the
self-contained HTML page (reports/run/html), for an editor's webview.

Each case and turn of the page carries where it is written in the document *now* (its
`loc`), so a click on a turn in the webview can reveal it without the editor re-locating
it; the locations come from the document's current parse, not from the run, because the
user may have edited the file since. The report is the one the run session returned
(secrets already masked), and the rendered page is masked again with that run's redactor:
the same two passes `holodeck-lsp run --report-html` makes."""

from __future__ import annotations

from typing import TYPE_CHECKING

from holodeck_lsp.server.documents.parsed import parsed_documents

if TYPE_CHECKING:
    from holodeck_lsp.reports.run.html.data import Locations
    from holodeck_lsp.schema.results import TestReport
    from holodeck_lsp.server.runs.state import Runner


async def page(runner: Runner, uri: str, report: TestReport) -> str:
    from holodeck_lsp.reports.run import html

    page_text = html.render(report, await locations(runner, uri))
    redactor = runner.redactors.get(uri)
    return redactor.text(page_text) if redactor is not None else page_text


async def locations(runner: Runner, uri: str) -> Locations:
    """(case, None) -> the case's first line; (case, turn) -> the turn's first line."""
    from holodeck_lsp.server.runs.run_locations import locate_suite

    parsed = await parsed_documents(runner.server).get(uri)
    suite = locate_suite(parsed.document.root) if parsed is not None else None
    where: dict[tuple[int, int | None], tuple[int, int]] = {}
    for case in suite.cases if suite is not None else ():
        where[(case.index, None)] = case.start
        for turn in case.turns:
            where[(case.index, turn.index)] = turn.start
    return where
