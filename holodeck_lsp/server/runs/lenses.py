"""The run code lenses: `▶ Run all` on `test_cases:`, `▶ Run case` (and `↻ Re-grade` once
the case has answers) on each case, `▶ Run turn N` on each turn — their titles showing the
last results (`✓` / `✗`)."""

from __future__ import annotations

from lsprotocol import types

from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.runs.arguments import REGRADE_CASE, RUN_ALL, RUN_CASE, RUN_TURN
from holodeck_lsp.server.runs.inline_results import FAILED, PASSED, case_status, mark
from holodeck_lsp.server.runs.state import Runner


async def code_lenses(runner: Runner, uri: str) -> list[types.CodeLens]:
    if runner.agent_of(uri) is None:
        return []
    parsed = await parsed_documents(runner.server).get(uri)
    suite, cases = runner.results.current(parsed, uri)
    if parsed is None or suite is None:
        return []
    converter = parsed.converter

    def lens(point: tuple[int, int], title: str, command: str, *args: object) -> types.CodeLens:
        line, character = converter.to_client(*point)
        position = types.Position(line, character)
        return types.CodeLens(
            range=types.Range(position, position),
            command=types.Command(title=title, command=command, arguments=[uri, *args]),
        )

    statuses = [case_status(cases.get(case.index)) for case in suite.cases]
    all_title = "▶ Run all"
    if suite.cases and all(status is not None for status in statuses):
        passed = sum(status is not None and status[0] == PASSED for status in statuses)
        total = len(statuses)
        all_title = (
            f"{PASSED} Run all"
            if passed == total
            else (f"{FAILED} Run all ({passed}/{total} cases)")
        )
    lenses = [lens(suite.key, all_title, RUN_ALL)]
    for case, status in zip(suite.cases, statuses, strict=True):
        title = "▶ Run case" if status is None else f"{status[0]} Run case{status[1]}"
        lenses.append(lens(case.start, title, RUN_CASE, case.index))
        if case.index in runner.answers.get(uri, {}):
            lenses.append(lens(case.start, "↻ Re-grade", REGRADE_CASE, case.index))
        record = cases.get(case.index)
        for turn in case.turns:
            done = record.turns.get(turn.index) if record is not None else None
            prefix = "▶" if done is None else mark(done)
            lenses.append(
                lens(
                    turn.start, f"{prefix} Run turn {turn.index}", RUN_TURN, case.index, turn.index
                )
            )
    return lenses
