"""Pull diagnostics (`diagnostics: "pull"`): result ids, unchanged reports, the workspace."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, initialize, open_file, published, uri

BAD = """name: pulled
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
test_cases:
  - {name: one, input: "q", ground_truth: 5}
"""


async def pull(client: LanguageClient, document: str, previous: str | None = None) -> object:
    return await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(
            text_document=types.TextDocumentIdentifier(document), previous_result_id=previous
        )
    )


async def test_document_pull_with_result_ids(client: LanguageClient, tmp_path: Path) -> None:
    result = await initialize(client, root=tmp_path, diagnostics="pull")
    provider = result.capabilities.diagnostic_provider
    assert isinstance(provider, types.DiagnosticOptions)
    assert provider.workspace_diagnostics and provider.inter_file_dependencies
    agent = tmp_path / "agent.yaml"
    agent.write_text(BAD, encoding="utf-8")
    document = open_file(client, agent)
    first = await pull(client, document)
    assert isinstance(first, types.RelatedFullDocumentDiagnosticReport)
    assert [d.code for d in first.items] == ["HD102"]
    assert first.result_id
    again = await pull(client, document, first.result_id)
    assert isinstance(again, types.RelatedUnchangedDocumentDiagnosticReport)
    assert again.result_id == first.result_id
    change_file(client, document, BAD.replace("ground_truth: 5", 'ground_truth: "5"'), 2)
    fixed = await pull(client, document, first.result_id)
    assert isinstance(fixed, types.RelatedFullDocumentDiagnosticReport)
    assert not fixed.items and fixed.result_id != first.result_id
    assert not published(client)  # pull mode pushes nothing


async def test_workspace_pull_covers_every_agent(client: LanguageClient, tmp_path: Path) -> None:
    await initialize(client, root=tmp_path, diagnostics="pull")
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    (tmp_path / "a" / "agent.yaml").write_text(BAD, encoding="utf-8")
    (tmp_path / "b" / "other.agent.yaml").write_text(BAD.replace("5}", '"5"}'), encoding="utf-8")
    report = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(previous_result_ids=[])
    )
    by_uri = {item.uri: item for item in report.items}
    bad, good = uri(tmp_path / "a" / "agent.yaml"), uri(tmp_path / "b" / "other.agent.yaml")
    assert set(by_uri) == {bad, good}
    first = by_uri[bad]
    assert isinstance(first, types.WorkspaceFullDocumentDiagnosticReport)
    assert [d.code for d in first.items] == ["HD102"]
    second = await client.workspace_diagnostic_async(
        types.WorkspaceDiagnosticParams(
            previous_result_ids=[types.PreviousResultId(uri=bad, value=first.result_id)]
        )
    )
    again = {item.uri: item for item in second.items}
    assert isinstance(again[bad], types.WorkspaceUnchangedDocumentDiagnosticReport)
    assert isinstance(again[good], types.WorkspaceFullDocumentDiagnosticReport)
