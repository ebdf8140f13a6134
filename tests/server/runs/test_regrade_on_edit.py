"""Re-grading an edited case from its recorded answers (server/runs/regrade_on_edit.py): the
run's answers, else the settings' cassette; results without answers are dropped."""

from __future__ import annotations

import asyncio
from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.lsp_client import change_file, wait_for
from tests.server.runs.run_suite import (
    AGENT,
    ARG_B_LINE,
    SINGLE_LINE,
    TURN0_LINE,
    TURN1_LINE,
    hints,
    lenses,
    record_results,
    run,
    run_items,
    start,
)


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


async def test_typing_a_key_under_args_is_regraded_quietly(
    client: LanguageClient, tmp_path: Path
) -> None:
    """The issue's case: never run since opened, a recording opted into (`cassettePath`), the
    user types `extra: ` under `args:` — the re-grade's failure is Information, not Error."""
    document_uri = await start(client, tmp_path, trusted=True)
    received = record_results(client)
    # Half-typed (`extra` alone does not parse): nothing is re-graded, only the parse error.
    typing = AGENT.replace("              b: 5\n", "              b: 5\n              extra\n")
    change_file(client, document_uri, typing, version=2)
    params = await wait_for(client, document_uri, lambda p: p.version == 2)
    assert not run_items(params) and not received
    typed = AGENT.replace("              b: 5\n", "              b: 5\n              extra: \n")
    change_file(client, document_uri, typed, version=3)
    params = await wait_for(client, document_uri, lambda p: p.version == 3 and bool(run_items(p)))
    assert [d for d in params.diagnostics if d.severity == types.DiagnosticSeverity.Error] == []
    assert {d.severity for d in run_items(params)} == {types.DiagnosticSeverity.Information}
    assert all(d.message.endswith("(re-graded from transcript)") for d in run_items(params))
    assert [(r["caseIndex"], r["regraded"], r["quiet"]) for r in map(_plain, received)] == [
        (0, True, True)
    ]


async def test_a_run_failure_stays_an_error(client: LanguageClient, tmp_path: Path) -> None:
    """Runs the user starts (and the ↻ Re-grade command) keep Error severity; a quiet re-grade
    after it is Information; running again makes it an Error again."""
    document_uri = await start(client, tmp_path, trusted=True)
    await run(client, "holodeck.runAll", document_uri)
    params = await wait_for(client, document_uri, lambda p: bool(run_items(p)))
    assert {d.severity for d in run_items(params)} == {types.DiagnosticSeverity.Error}
    change_file(client, document_uri, AGENT.replace("b: 5", "b: 7"), version=2)
    params = await wait_for(client, document_uri, lambda p: p.version == 2 and bool(run_items(p)))
    assert {d.severity for d in run_items(params)} == {types.DiagnosticSeverity.Information}
    await run(client, "holodeck.regradeCase", document_uri, 0)
    params = await wait_for(
        client,
        document_uri,
        lambda p: (
            p.version == 2
            and {d.severity for d in run_items(p)} == {types.DiagnosticSeverity.Error}
        ),
    )
    assert run_items(params)[0].range.start.line == ARG_B_LINE


async def test_the_setting_turns_it_off(client: LanguageClient, tmp_path: Path) -> None:
    document_uri = await start(client, tmp_path, trusted=True, settings={"regradeOnEdit": False})
    received = record_results(client)
    change_file(client, document_uri, AGENT.replace('ground_truth: "7"', 'ground_truth: "8"'), 2)
    params = await wait_for(client, document_uri, lambda p: p.version == 2)
    # A check later (the re-grade would have been published by then): still nothing.
    change_file(client, document_uri, AGENT.replace('ground_truth: "7"', 'ground_truth: "9"'), 3)
    params = await wait_for(client, document_uri, lambda p: p.version == 3)
    assert not run_items(params) and not received
    assert await hints(client, document_uri) == []


def _plain(params: object) -> dict[str, object]:
    """A notification's params as a dict (pytest-lsp gives an attribute object)."""
    return {key: getattr(params, key) for key in ("caseIndex", "regraded", "quiet")}


#: A code grader whose first call (the re-grade's) waits for a `release` file; later calls
#: (the run's) answer at once.
GATED_GRADER = """import os
import pathlib
import time

_HERE = pathlib.Path(__file__).parent


def grade(context):
    try:
        os.close(os.open(_HERE / "first", os.O_CREAT | os.O_EXCL))
    except FileExistsError:
        return True
    for _ in range(600):
        if (_HERE / "release").exists():
            break
        time.sleep(0.05)
    (_HERE / "released").touch()
    return True
"""


async def test_a_regrade_that_ends_after_a_run_of_the_case_leaves_the_runs_result(
    client: LanguageClient, tmp_path: Path
) -> None:
    """An edit starts a quiet re-grade; the user runs the case before it ends: the run's
    result stands, the older re-grade's is dropped (it once replaced it)."""
    document_uri = await start(client, tmp_path, trusted=True)
    (tmp_path / "gated.py").write_text(GATED_GRADER, encoding="utf-8")
    # Edits of case 1 until one is re-graded: the re-grading listener is then live (the
    # settings read, the text it compares with recorded) for the edit the test is about.
    received = record_results(client)
    version = 1
    for answer in range(8, 40):
        version += 1
        first_edit = AGENT.replace('    ground_truth: "7"\n', f'    ground_truth: "{answer}"\n')
        change_file(client, document_uri, first_edit, version=version)
        for _ in range(150):
            if [r for r in received if r.quiet]:
                break
            await asyncio.sleep(0.02)
        else:
            continue
        break
    assert [r for r in received if r.quiet], "no edit was re-graded"
    grader = "    evaluations:\n      - type: code\n        grader: gated:grade\n"
    edited = AGENT.replace('    ground_truth: "7"\n', '    ground_truth: "7"\n' + grader)
    change_file(client, document_uri, edited, version=version + 1)  # case 1: re-graded
    async with asyncio.timeout(30):
        while not (tmp_path / "first").exists():  # the re-grade is in the grader, held
            await asyncio.sleep(0.02)
    received.clear()
    answer = await run(client, "holodeck.runCase", document_uri, 1)
    assert answer["status"] == "done", answer
    [ran] = [hint for line, hint in await hints(client, document_uri) if line == SINGLE_LINE + 1]
    assert "re-graded" not in ran, ran
    (tmp_path / "release").touch()
    async with asyncio.timeout(30):
        while not (tmp_path / "released").exists():
            await asyncio.sleep(0.02)
    await asyncio.sleep(1.5)  # time for the re-grade's result to arrive, were it kept
    assert [(r.caseIndex, r.regraded, r.quiet) for r in received] == [(1, False, False)]
    [shown] = [hint for line, hint in await hints(client, document_uri) if line == SINGLE_LINE + 1]
    assert shown == ran
