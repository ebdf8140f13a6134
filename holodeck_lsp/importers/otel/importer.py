"""`import otel FILE`: read the spans, find the conversations, build the suite
(docs/importing-otel.md)."""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.importers.otel.conversations import conversations
from holodeck_lsp.importers.otel.spans import OtelImportError, read_spans
from holodeck_lsp.importers.otel.suite import ImportedSuite, build_suite


def import_otel(path: Path, name: str, conversation: str | None = None) -> ImportedSuite:
    """Raises `OtelImportError` (cause and fix) for a file that cannot be imported."""
    found = conversations(read_spans(path))
    if conversation is not None:
        found = [c for c in found if conversation in (c.key, c.trace_id)]
        if not found:
            raise OtelImportError(
                f"{path} has no conversation {conversation}: give a gen_ai.conversation.id or a "
                "trace id of the file, or leave out --conversation to import them all"
            )
    return build_suite(found, name, path.name)
