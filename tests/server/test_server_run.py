"""Running from the editor: run lenses, the run commands on a replayed cassette, inline results
(inlay hints, `holodeck-run` diagnostics, lens titles, `holodeck/runResult`), trust, edits."""

from __future__ import annotations

import asyncio
import json
import os
from pathlib import Path
from typing import Any

import pytest
from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import (
    TIMEOUT,
    change_file,
    initialize,
    open_file,
    published,
    wait_for,
)

AGENT = """name: runs
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: "Answer."
evaluations:
  metrics:
    - type: standard
      metric: numeric
test_cases:
  - name: two-turns
    turns:
      - input: "q0"
        ground_truth: "10"
      - input: "q1"
        ground_truth: "5"
        expected_tools:
          - name: subtract
            args:
              a: 10
              b: 5
  - name: single
    input: "q2"
    ground_truth: "7"
"""
CASES_LINE, TURN0_LINE, TURN1_LINE, ARG_B_LINE, SINGLE_LINE = 11, 13, 15, 21, 22


def _turn(
    text: str, response: str, tools: list[dict[str, Any]] | None = None, ms: int = 1300
) -> dict[str, Any]:
    return {
        "input": text,
        "response": response,
        "tool_calls": tools or [],
        "token_usage": {"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12},
        "error": None,
        "duration_ms": ms,
    }


CASSETTE = {
    "format": "holodeck-cassette",
    "version": 1,
    "agent": "runs",
    "cases": [
        {
            "name": "two-turns",
            "index": 0,
            "turns": [
                _turn("q0", "10"),
                _turn(
                    "q1",
                    "5",
                    [{"name": "subtract", "args": {"a": 10, "b": 6}, "result": 4, "error": None}],
                ),
            ],
        },
        {"name": "single", "index": 1, "turns": [_turn("q2", "7")]},
    ],
}


def write_suite(root: Path) -> Path:
    agent = root / "agent.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    (root / "run.cassette.json").write_text(json.dumps(CASSETTE, indent=2), encoding="utf-8")
    return agent


async def start(
    client: LanguageClient,
    root: Path,
    *,
    trusted: bool,
    cassette: bool = True,
    diagnostics: str = "push",
) -> str:
    """Like `lsp_client.initialize`, with the capabilities the run features use."""
    settings = {"cassettePath": "run.cassette.json"} if cassette else {}
    await initialize(
        client,
        root=root,
        trusted=trusted,
        diagnostics=diagnostics,
        settings=settings,
        progress=True,
    )
    document_uri = open_file(client, write_suite(root))
    if diagnostics != "pull":
        await wait_for(client, document_uri)
    return document_uri


def record_results(client: LanguageClient) -> list[Any]:
    received: list[Any] = []

    @client.feature("holodeck/runResult")
    def on_result(params: Any) -> None:
        received.append(params)

    return received


async def lenses(client: LanguageClient, document_uri: str) -> list[tuple[int, str, list[Any]]]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=document_uri))
    )
    return [
        (lens.range.start.line, lens.command.title, list(lens.command.arguments or []))
        for lens in found or []
        if lens.command is not None
    ]


async def hints(client: LanguageClient, document_uri: str) -> list[tuple[int, str]]:
    found = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=document_uri),
            range=types.Range(types.Position(0, 0), types.Position(100, 0)),
        )
    )
    return [(hint.position.line, str(hint.label)) for hint in found or []]


async def run(client: LanguageClient, command: str, *arguments: Any) -> Any:
    return await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(arguments))
        ),
        TIMEOUT,
    )


def run_items(params: types.PublishDiagnosticsParams) -> list[types.Diagnostic]:
    return [d for d in params.diagnostics if d.source == "holodeck-run"]


async def test_lenses_offer_run_all_cases_and_turns(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    assert await lenses(client, document_uri) == [
        (10, "▶ Run all", [document_uri]),
        (CASES_LINE, "▶ Run case", [document_uri, 0]),
        (TURN0_LINE, "▶ Run turn 0", [document_uri, 0, 0]),
        (TURN1_LINE, "▶ Run turn 1", [document_uri, 0, 1]),
        (SINGLE_LINE, "▶ Run case", [document_uri, 1]),
        (SINGLE_LINE, "▶ Run turn 0", [document_uri, 1, 0]),
    ]


async def test_run_case_shows_results_inline(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    received = record_results(client)
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer["status"] == "done"
    assert answer["summary"]["failed"] == 1
    [result] = answer["results"]
    assert [turn["passed"] for turn in result["turns"]] == [True, False]

    # The custom notification carries the TestResult JSON.
    assert len(received) == 1
    notified = received[0]
    assert notified.uri == document_uri and notified.caseIndex == 0
    assert notified.result.test_name == "two-turns"

    # Diagnostics: the checker's (none) plus the run's, at the failing argument's line.
    params = await wait_for(client, document_uri, lambda p: bool(run_items(p)))
    [diagnostic] = run_items(params)
    assert diagnostic.range.start.line == ARG_B_LINE
    assert "arg 'b'" in diagnostic.message
    assert diagnostic.severity == types.DiagnosticSeverity.Error

    assert await hints(client, document_uri) == [
        (TURN0_LINE, "✓ 10 · numeric 1.00 · 0.0 s"),
        (TURN1_LINE, "✗ 5 · numeric 1.00 · 0.0 s"),
    ]
    titles = [(line, title) for line, title, _ in await lenses(client, document_uri)]
    assert titles == [
        (10, "▶ Run all"),
        (CASES_LINE, "✗ Run case (1/2 turns)"),
        (CASES_LINE, "↻ Re-grade"),
        (TURN0_LINE, "✓ Run turn 0"),
        (TURN1_LINE, "✗ Run turn 1"),
        (SINGLE_LINE, "▶ Run case"),
        (SINGLE_LINE, "▶ Run turn 0"),
    ]


async def test_run_all_and_progress(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    answer = await run(client, "holodeck.runAll", document_uri)
    assert answer["summary"]["passed"] == 1 and answer["summary"]["failed"] == 1
    titles = [title for _, title, _ in await lenses(client, document_uri)]
    assert titles[0] == "✗ Run all (1/2 cases)"
    assert titles[5:] == ["✓ Run case", "↻ Re-grade", "✓ Run turn 0"]
    [reports] = client.progress_reports.values()
    assert isinstance(reports[0], types.WorkDoneProgressBegin) and reports[0].cancellable
    assert sum(isinstance(r, types.WorkDoneProgressReport) for r in reports) == 3
    assert isinstance(reports[-1], types.WorkDoneProgressEnd)


async def test_run_turn_marks_that_turn_only(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    answer = await run(client, "holodeck.runTurn", document_uri, 0, 1)
    assert [t["turn_index"] for t in answer["results"][0]["turns"]] == [1]
    titles = [title for _, title, _ in await lenses(client, document_uri)]
    assert titles[1:4] == ["▶ Run case", "▶ Run turn 0", "✗ Run turn 1"]


async def test_untrusted_workspace_refuses_to_run(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=False)
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer == {"status": "refused", "reason": "untrusted"}
    [message] = client.messages
    assert message.type == types.MessageType.Warning
    assert "untrusted" in message.message and "tools" in message.message


async def test_missing_cassette_is_reported(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "run.cassette.json").unlink()
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer["status"] == "refused"
    [message] = client.messages
    assert message.type == types.MessageType.Error
    assert "run.cassette.json" in message.message and "cassettePath" in message.message


async def test_editing_a_case_regrades_it_from_its_answers(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    await run(client, "holodeck.runAll", document_uri)
    await wait_for(client, document_uri, lambda p: bool(run_items(p)))
    (tmp_path / "run.cassette.json").unlink()  # the run's own answers are re-graded
    received = record_results(client)
    # Fix the first case's assertion to what the agent answered: it passes, re-graded.
    edited = AGENT.replace("b: 5", "b: 6")
    change_file(client, document_uri, edited, version=2)
    params = await wait_for(
        client, document_uri, lambda p: p.version == 2 and not run_items(p) and bool(received)
    )
    assert params.version == 2
    assert [(r.caseIndex, r.regraded, r.result.passed) for r in received] == [(0, True, True)]
    assert await hints(client, document_uri) == [
        (TURN0_LINE, "✓ 10 · numeric 1.00 · re-graded from transcript"),
        (TURN1_LINE, "✓ 5 · numeric 1.00 · re-graded from transcript"),
        (SINGLE_LINE + 1, "✓ 7 · numeric 1.00 · 0.0 s"),  # not edited: its run's result
    ]
    titles = [title for _, title, _ in await lenses(client, document_uri)]
    assert titles[:5] == [
        "✓ Run all",
        "✓ Run case (re-graded)",
        "↻ Re-grade",
        "✓ Run turn 0",
        "✓ Run turn 1",
    ]
    # Break it again: the failure is reported on the arg's line, marked as re-graded.
    change_file(client, document_uri, AGENT.replace("b: 5", "b: 7"), version=3)
    params = await wait_for(client, document_uri, lambda p: p.version == 3 and bool(run_items(p)))
    [failure] = run_items(params)
    assert failure.range.start.line == ARG_B_LINE
    assert failure.message.endswith("(re-graded from transcript)")


async def test_editing_a_case_regrades_it_from_the_settings_cassette(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    # Never run: the cassette of `cassettePath` holds the answers (case 1 answered "7").
    change_file(client, document_uri, AGENT.replace('ground_truth: "7"', 'ground_truth: "8"'), 2)
    params = await wait_for(client, document_uri, lambda p: p.version == 2 and bool(run_items(p)))
    [failure] = run_items(params)
    assert failure.range.start.line == SINGLE_LINE + 2  # the ground_truth line
    assert "expected '8', got '7'" in failure.message
    assert failure.message.endswith("(re-graded from transcript)")
    # The other case was not edited: it is not graded.
    assert [line for line, _ in await hints(client, document_uri)] == [SINGLE_LINE + 1]


async def test_results_without_answers_are_dropped_when_the_case_is_edited(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    await run(client, "holodeck.runTurn", document_uri, 0, 0)  # a turn run keeps no answers
    (tmp_path / "run.cassette.json").unlink()
    assert await hints(client, document_uri) == [(TURN0_LINE, "✓ 10 · numeric 1.00 · 0.0 s")]
    change_file(client, document_uri, AGENT.replace('"q0"', '"q0 edited"'), version=2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    assert await hints(client, document_uri) == []


async def test_an_edit_during_a_run_does_not_crash(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    running = asyncio.ensure_future(run(client, "holodeck.runCase", document_uri, 0))
    # Edit once the run has begun (its progress began: the case's text has been taken).
    while not any(client.progress_reports.values()):
        await asyncio.sleep(0.001)
    change_file(client, document_uri, AGENT.replace('"q1"', '"q1 edited"'), version=2)
    answer = await running
    assert answer["status"] == "done"
    await wait_for(client, document_uri, lambda p: p.version == 2)
    # The run's results are for the old text of the case: never shown. When the edit is
    # checked after the run ended, the case is re-graded from its answers, and the edited
    # turn says that its recorded answer was to another question.
    shown = await hints(client, document_uri)
    assert all(label.endswith("re-graded from transcript") for _, label in shown)
    if shown:
        assert [label[0] for _, label in shown] == ["✓", "✗"]
        await wait_for(
            client,
            document_uri,
            lambda p: any("input differs" in d.message for d in run_items(p)),
        )
    else:
        assert [title for _, title, _ in await lenses(client, document_uri)][1] == "▶ Run case"


SLOW_GRADER = """import time


def slow(context):
    time.sleep(1.5)
    return False


def fail(context):
    return False
"""


@pytest.mark.parametrize("how", ["progress", "command"])
@pytest.mark.slow
async def test_cancelling_the_progress_cancels_the_run(
    client: LanguageClient, tmp_path: Path, how: str
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "slow_grader.py").write_text(SLOW_GRADER, encoding="utf-8")
    text = AGENT.replace(
        '        ground_truth: "10"\n',
        '        ground_truth: "10"\n        evaluations:\n'
        "          - type: code\n            grader: slow_grader:slow\n",
    )
    change_file(client, document_uri, text, version=2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    running = asyncio.ensure_future(run(client, "holodeck.runCase", document_uri, 0))
    while not any(client.progress_reports.values()):
        await asyncio.sleep(0.001)
    [token] = client.progress_reports
    if how == "progress":
        client.window_work_done_progress_cancel(types.WorkDoneProgressCancelParams(token=token))
    else:  # `holodeck.cancelRun`, for clients that show runs their own way (a Testing view)
        assert await run(client, "holodeck.cancelRun", document_uri) == {"status": "cancelling"}
    answer = await running
    assert answer["status"] == "cancelled"
    turns = answer["results"][0]["turns"]
    assert turns[1]["skipped"] and "cancelled" in turns[1]["errors"][0]
    assert isinstance(client.progress_reports[token][-1], types.WorkDoneProgressEnd)


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


async def test_regrade_replays_the_last_answers_against_the_edited_case(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    answer = await run(client, "holodeck.regradeCase", document_uri, 0)
    assert answer["status"] == "refused" and "run the case first" in answer["reason"]
    await run(client, "holodeck.runCase", document_uri, 0)
    (tmp_path / "run.cassette.json").unlink()  # a re-grade needs no backend or cassette
    change_file(client, document_uri, AGENT.replace("b: 5", "b: 6"), version=2)
    await wait_for(client, document_uri, lambda p: p.version == 2)
    answer = await run(client, "holodeck.regradeCase", document_uri, 0)
    assert answer["status"] == "done" and answer["summary"]["passed"] == 1
    assert [t["response"] for t in answer["results"][0]["turns"]] == ["10", "5"]
    titles = [title for _, title, _ in await lenses(client, document_uri)]
    assert titles[1:5] == ["✓ Run case (re-graded)", "↻ Re-grade", "✓ Run turn 0", "✓ Run turn 1"]
    assert [label[0] for _, label in await hints(client, document_uri)] == ["✓", "✓"]


@pytest.mark.skipif("OPENAI_API_KEY" in os.environ, reason="the live backend could start")
async def test_a_backend_that_cannot_start_is_reported(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=True, cassette=False)
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    assert answer["status"] == "refused"
    [message] = client.messages
    assert message.type == types.MessageType.Error
    # BackendInitError's own text: the missing extra or the missing API key, and how to fix it.
    assert "openai" in message.message
    assert "OPENAI_API_KEY" in message.message or "pip install" in message.message


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


INCLUDED_AGENT = AGENT.split("test_cases:")[0] + "test_cases_file: cases.yaml\n"
INCLUDED_CASES = "\n".join(line[2:] for line in AGENT.split("test_cases:\n")[1].splitlines())


async def test_cases_in_an_include_run_from_the_include(
    client: LanguageClient, tmp_path: Path
) -> None:
    agent_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "agent.yaml").write_text(INCLUDED_AGENT, encoding="utf-8")
    change_file(client, agent_uri, INCLUDED_AGENT, version=2)
    cases = tmp_path / "cases.yaml"
    cases.write_text(INCLUDED_CASES + "\n", encoding="utf-8")
    await wait_for(client, agent_uri, lambda p: p.version == 2)
    include_uri = open_file(client, cases)
    titles = [(line, title) for line, title, _ in await lenses(client, include_uri)]
    shift = CASES_LINE  # the include's lines are the agent's, from its first case on
    assert titles == [
        (0, "▶ Run all"),
        (0, "▶ Run case"),
        (TURN0_LINE - shift, "▶ Run turn 0"),
        (TURN1_LINE - shift, "▶ Run turn 1"),
        (SINGLE_LINE - shift, "▶ Run case"),
        (SINGLE_LINE - shift, "▶ Run turn 0"),
    ]
    answer = await run(client, "holodeck.runAll", include_uri)
    assert answer["status"] == "done" and answer["summary"]["failed"] == 1
    params = await wait_for(client, include_uri, lambda p: bool(run_items(p)))
    [failure] = run_items(params)
    assert failure.range.start.line == ARG_B_LINE - shift
    assert [line for line, _ in await hints(client, include_uri)] == [
        TURN0_LINE - shift,
        TURN1_LINE - shift,
        SINGLE_LINE + 1 - shift,
    ]
    # Unsaved edits: the run would read other cases from disk than the ones shown.
    change_file(client, include_uri, INCLUDED_CASES.replace('"q2"', '"q3"'), version=2)
    answer = await run(client, "holodeck.runCase", include_uri, 1)
    assert answer["status"] == "refused" and "save cases.yaml" in answer["reason"]


async def discover(client: LanguageClient, document_uri: str) -> Any:
    return await asyncio.wait_for(
        client.protocol.send_request_async("holodeck/discoverTests", {"uri": document_uri}),
        TIMEOUT,
    )


async def test_discover_tests_lists_cases_and_turns_with_ranges(
    client: LanguageClient, tmp_path: Path
) -> None:
    document_uri = await start(client, tmp_path, trusted=False)
    found = await discover(client, document_uri)
    assert found.uri == document_uri and found.agentUri == document_uri
    assert found.range.start.line == CASES_LINE - 1  # `test_cases:`
    first, second = found.cases
    assert (first.index, first.name, second.index, second.name) == (0, "two-turns", 1, "single")
    assert (first.range.start.line, first.range.end.line) == (CASES_LINE, SINGLE_LINE)
    assert [(t.index, t.range.start.line, t.inputRange.start.line) for t in first.turns] == [
        (0, TURN0_LINE, TURN0_LINE),
        (1, TURN1_LINE, TURN1_LINE),
    ]
    [single] = second.turns
    assert (single.index, single.range.start.line, single.inputRange.start.line) == (
        0,
        SINGLE_LINE,
        SINGLE_LINE + 1,
    )
    (tmp_path / "notes.yaml").write_text("a: 1\n", encoding="utf-8")
    assert await discover(client, open_file(client, tmp_path / "notes.yaml")) is None


async def test_last_run_report_and_cancel_run(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True)
    assert (await run(client, "holodeck.lastRunReport", document_uri))["status"] == "none"
    assert (await run(client, "holodeck.cancelRun", document_uri)) == {"status": "idle"}
    await run(client, "holodeck.runAll", document_uri)
    report = await run(client, "holodeck.lastRunReport", document_uri)
    assert report["status"] == "done"
    assert "two-turns" in report["markdown"] and "single" in report["markdown"]
