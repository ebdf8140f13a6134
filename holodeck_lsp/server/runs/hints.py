"""Inlay hints: each turn's last result after its `input:` (`✓ 25587 · numeric 1.00 · 1.2 s`),
drawn from the stored results (see `inline_results`)."""

from __future__ import annotations

from lsprotocol import types

from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.runs.state import Runner


async def inlay_hints(runner: Runner, uri: str) -> list[types.InlayHint]:
    if uri not in runner.results.records:
        return []
    parsed = await parsed_documents(runner.server).get(uri)
    suite, cases = runner.results.current(parsed, uri, every_case=False)
    if parsed is None or suite is None:
        return []
    return runner.results.inlay_hints(suite, cases, parsed.converter)
