"""textDocument/hover on a case `import otel` wrote, over stdio against the real server: the
conversation it came from (the `# otel: <conversation> (service <name>)` comment above it)."""

from __future__ import annotations

from pathlib import Path

from pytest_lsp import LanguageClient

from holodeck_lsp.importers.otel.importer import import_otel
from tests.importers.otel_traces import CONVERSATION, production_trace
from tests.server.features.navigation_agent import case_name_position, hover_text
from tests.server.lsp_client import initialize, open_file, wait_for


async def test_an_imported_conversation_shows_where_it_came_from(
    client: LanguageClient, tmp_path: Path
) -> None:
    await initialize(client, root=tmp_path)
    suite = import_otel(production_trace(tmp_path / "trace.jsonl"), "support-regression")
    agent = tmp_path / "agent.yaml"
    agent.write_text(suite.agent, encoding="utf-8")
    document = open_file(client, agent)
    await wait_for(client, document)
    text = agent.read_text(encoding="utf-8")
    shown = await hover_text(client, document, case_name_position(text, "support-conv-7f1"))
    assert shown is not None
    source, _, field = shown.partition("\n\n---\n\n")
    assert source == f"**imported from `otel`**: record `{CONVERSATION}` (service support-prod)"
    assert field.startswith("**`name`**")
