"""The run's results as diagnostics (server/runs/inline_results.py): on the failing entry's line,
in pulled reports too."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import published, wait_for
from tests.server.runs.run_suite import (
    ARG_B_LINE,
    CASSETTE,
    SINGLE_LINE,
    grade_turn_0_with,
    hints,
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
    text = await grade_turn_0_with(client, tmp_path, document_uri, "fail")
    await run(client, "holodeck.runTurn", document_uri, 0, 0)

    def grader_failures(params: types.PublishDiagnosticsParams) -> list[types.Diagnostic]:
        # The edit also re-graded the case from the cassette: the turn's run replaces turn 0.
        return [d for d in run_items(params) if "re-graded" not in d.message]

    params = await wait_for(client, document_uri, lambda p: bool(grader_failures(p)))
    [diagnostic] = grader_failures(params)
    assert diagnostic.range.start.line == text.splitlines().index("          - type: code")
    assert diagnostic.message.startswith("fail 0.00")


def _errored_cassette() -> dict[str, object]:
    """The suite's cassette with `single`'s turn recorded as a provider error (format 4)."""
    cassette = copy.deepcopy(CASSETTE)
    cassette["version"] = 4
    single = cassette["cases"][1]["turns"][0]  # type: ignore[index]
    error = "provider error: HTTP 429 Too Many Requests (retry budget spent)"
    single.update(response=None, token_usage=None, errored=True, error=error)
    return cassette


async def test_an_errored_turn_is_a_warning_saying_errored_not_failed(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True, diagnostics="pull")
    (tmp_path / "run.cassette.json").write_text(json.dumps(_errored_cassette()), "utf-8")
    answer = await run(client, "holodeck.runCase", document_uri, 1)
    [result] = answer["results"]
    assert result["errored"] and not result["passed"]  # a single-turn case: no `turns`
    assert answer["summary"]["errored"] == 1 and answer["summary"]["failed"] == 0
    report = await client.text_document_diagnostic_async(
        types.DocumentDiagnosticParams(text_document=types.TextDocumentIdentifier(document_uri))
    )
    assert isinstance(report, types.RelatedFullDocumentDiagnosticReport)
    [errored] = [d for d in report.items if d.source == "holodeck-run"]
    assert errored.severity == types.DiagnosticSeverity.Warning  # not an error: not measured
    assert errored.message.startswith("errored (not measured): provider error: HTTP 429")
    assert "fail" not in errored.message
    assert errored.range.start.line == SINGLE_LINE + 1  # the turn's input line
    [label] = [
        label for line, label in await hints(client, document_uri) if line == SINGLE_LINE + 1
    ]
    assert label.startswith("! errored (not measured)")
    [reports] = client.progress_reports.values()
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)
    assert reports[-1].message == "0 passed, 0 failed, 1 errored"
