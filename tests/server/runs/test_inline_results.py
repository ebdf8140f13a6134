"""The run's results as diagnostics (server/runs/inline_results.py): on the failing entry's line,
in pulled reports too."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, published, wait_for
from tests.server.runs.run_suite import (
    AGENT,
    ARG_B_LINE,
    SLOW_GRADER,
    run,
    run_items,
    start,
)


async def test_pulled_diagnostics_carry_the_run_results(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True, diagnostics="pull")

    async def pulled() -> types.RelatedFullDocumentDiagnosticReport:
        report = await client.text_document_diagnostic_async(
            types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(document_uri))
        )
        assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
        return report

    def run_results(report: types.RelatedFullDocumentDiagnosticReport) -> list[types.Diagnostic]:
        return [d for d in report.items if d.source == "holodeck-run"]

    assert run_results(await pulled()) == []
    await run(client, "holodeck.runCase", document_uri, 0)
    [failure] = run_results(await pulled())
    assert failure.range.start.line == ARG_B_LINE
    assert not published(client)  # pull mode pushes nothing, run results included


async def test_a_failing_grader_is_reported_on_its_entry(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "slow_grader.py").write_text(SLOW_GRADER, encoding="utf-8")
    text = AGENT.replace(
        '        ground_truth: "10"\n',
        '        ground_truth: "10"\n        evaluations:\n'
        "          - type: code\n            grader: slow_grader:fail\n",
    )
    change_file(client, document_uri, text, version=2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    await run(client, "holodeck.runTurn", document_uri, 0, 0)

    def grader_failures(params: types.PublishDiagnosticsParams) -> list[types.Diagnostic]:
        # The edit also re-graded the case from the cassette: the turn's run replaces turn 0.
        return [d for d in run_items(params) if "re-graded" not in d.message]

    params = await wait_for(client, document_uri, lambda p: bool(grader_failures(p)))
    [diagnostic] = grader_failures(params)
    assert diagnostic.range.start.line == text.splitlines().index("          - type: code")
    assert diagnostic.message.startswith("fail 0.00")
