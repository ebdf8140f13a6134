"""The run code lenses: `▶ Run all` on `test_cases:`, `▶ Run case` (and `↻ Re-grade` once
the case has answers) on each case, `▶ Run turn N` on each turn — their titles showing the
last results (`✓` / `✗`).

When a run would be refused whatever the user clicks — an untrusted workspace, or errors in
the agent by its last check — the run lenses are replaced by one lens on `test_cases:` that
says why (`⊘ Cannot run: agent.yaml has 2 errors — fix them first`); clicking it
(`holodeck.whyNoRun`) shows the whole reason, with the first error. Offering a run only to
refuse it on click would make the user find the cause twice."""

from __future__ import annotations

from pathlib import PurePath

from lsprotocol import types

from holodeck_lsp.server.documents.index import uri_to_path
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.runs.arguments import REGRADE_CASE, RUN_ALL, RUN_CASE, RUN_TURN, WHY_NO_RUN
from holodeck_lsp.server.runs.inline_results import FAILED, PASSED, case_status, mark
from holodeck_lsp.server.runs.regressions import REGRESSED, regression_count, regressions_of
from holodeck_lsp.server.runs.state import Runner
from holodeck_lsp.server.trust import refusal

REFUSED = "⊘"


def run_refusal(runner: Runner, uri: str) -> tuple[str, str] | None:
    """(lens title, full message) when any run of the document would be refused now."""
    untrusted = refusal(runner.server.settings)
    if untrusted is not None:
        return f"{REFUSED} Cannot run: untrusted workspace", untrusted
    agent_uri = runner.agent_of(uri)
    result = runner.engine.results.get(agent_uri) if agent_uri is not None else None
    if result is None:
        return None  # not checked yet: the run itself says what is wrong, if anything
    errors = [
        (target, item)
        for target, items in result.by_uri.items()
        for item in items
        if item.severity == types.DiagnosticSeverity.Error
    ]
    if not errors:
        return None
    path = uri_to_path(result.agent_uri)
    name = path.name if path is not None else PurePath(result.agent_uri).name
    count = f"{len(errors)} error{'s' if len(errors) != 1 else ''}"
    target, first = errors[0]
    where = uri_to_path(target)
    first_at = f"{where.name if where is not None else target}:{first.range.start.line + 1}"
    return (
        f"{REFUSED} Cannot run: {name} has {count} — fix them first",
        f"HoloDeck: {name} has {count}; fix them to run it (first, {first_at}: {first.message})",
    )


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

    refusal = run_refusal(runner, uri)
    if refusal is not None:
        return [lens(suite.key, refusal[0], WHY_NO_RUN)]
    view = await regressions_of(runner).view(uri, parsed)
    counts = [regression_count(view, case) for case in suite.cases]
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
    if sum(counts) and view.comparison is not None:
        all_title += f" · ⇣ {sum(counts)} regressed vs {view.comparison.base.label}"
    lenses = [lens(suite.key, all_title, RUN_ALL)]
    for case, status, count in zip(suite.cases, statuses, counts, strict=True):
        title = "▶ Run case" if status is None else f"{status[0]} Run case{status[1]}"
        if count:
            title += f" · ⇣ {count} regressed" if len(case.turns) > 1 else f" · {REGRESSED}"
        lenses.append(lens(case.start, title, RUN_CASE, case.index))
        if case.index in runner.answers.get(uri, {}):
            lenses.append(lens(case.start, "↻ Re-grade", REGRADE_CASE, case.index))
        record = cases.get(case.index)
        for turn in case.turns:
            done = record.turns.get(turn.index) if record is not None else None
            prefix = "▶" if done is None else mark(done)
            title = f"{prefix} Run turn {turn.index}"
            if view.regressed(case, turn):
                title += f" · {REGRESSED}"
            lenses.append(lens(turn.start, title, RUN_TURN, case.index, turn.index))
    return lenses


class RefusalWatch:
    """A `CheckListener`: when a check changes whether the document can run (errors fixed or
    made), ask the client for the lenses again — it asked for them on the edit, before the
    check had finished, and would keep showing the other kind until the next edit."""

    def __init__(self, runner: Runner) -> None:
        self._runner = runner
        self._refused: dict[str, bool] = {}

    def checked(self, uri: str, analysis: object) -> None:
        refused = run_refusal(self._runner, uri) is not None
        before = self._refused.get(uri)
        self._refused[uri] = refused
        if before is None or before == refused:
            return
        workspace = self._runner.server.client_capabilities.workspace
        if workspace and workspace.code_lens and workspace.code_lens.refresh_support:
            self._runner.server.workspace_code_lens_refresh(None)
