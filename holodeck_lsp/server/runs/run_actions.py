"""Run code actions for editors without code lenses (Helix, Emacs eglot, Kate, …): with the
cursor in a test case, `textDocument/codeAction` also offers **HoloDeck: Run turn N**, **Run
case** and **Run all** — the very `workspace/executeCommand` commands and arguments the
lenses carry (`lenses.code_lenses`), so every editor can run a turn. While a run of the file
goes, the only action is **HoloDeck: Cancel the run** (`holodeck.cancelRun`; another run
would be refused as busy), so every editor can stop one too.

They are offered only to clients that do not announce `textDocument.codeLens` (a client that
shows the lenses would get the same buttons twice, as a lightbulb on every line of a suite),
and only when a run would be accepted: a refused run (untrusted workspace, errors in the
file) is said by the diagnostics and by `holodeck.whyNoRun`, not by a menu entry that fails.
They are plain `Command`s (the other form a code action answer may hold): a command has no
`kind`, so a client asking `only` for quick fixes or refactors never gets them, and no client
can mistake them for an edit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from lsprotocol import types

from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.runs.arguments import CANCEL_RUN, RUN_ALL, RUN_CASE, RUN_TURN
from holodeck_lsp.server.runs.lenses import run_refusal
from holodeck_lsp.server.runs.state import Runner

if TYPE_CHECKING:
    # Types only: run_locations reads YAML (ruamel), which the start-up does not import.
    from holodeck_lsp.server.runs.run_locations import CaseLocation, Point, TurnLocation

PREFIX = "HoloDeck: "


def _client_shows_lenses(runner: Runner) -> bool:
    text_document = runner.server.client_capabilities.text_document
    return text_document is not None and text_document.code_lens is not None


def _contains(start: Point, end: Point | None, line: int) -> bool:
    """Whether `line` is in the block from `start` to `end` (YAML block nodes end at column 0
    of the line after their last one, which then belongs to the next node)."""
    if line < start[0]:
        return False
    if end is None:
        return True
    return line < end[0] or (line == end[0] and end[1] > 0)


def _at(cases: tuple[CaseLocation, ...], line: int) -> tuple[CaseLocation, TurnLocation | None]:
    """The case (and turn) around `line`; raises LookupError outside every case."""
    for case in cases:
        if _contains(case.start, case.end, line):
            turn = next((t for t in case.turns if _contains(t.start, t.end, line)), None)
            return case, turn
    raise LookupError(line)


def _label(case: CaseLocation) -> str:
    return f"'{case.name}'" if case.name else f"#{case.index}"


async def run_actions(runner: Runner, params: types.CodeActionParams) -> list[types.Command]:
    if params.context.only or _client_shows_lenses(runner):
        return []
    uri = params.text_document.uri
    if uri in runner.running:
        return [types.Command(title=PREFIX + "Cancel the run", command=CANCEL_RUN, arguments=[uri])]
    if runner.agent_of(uri) is None or run_refusal(runner, uri) is not None:
        return []
    parsed = await parsed_documents(runner.server).get(uri)
    suite, _ = runner.results.current(parsed, uri)
    if parsed is None or suite is None:
        return []
    line, _ = parsed.converter.from_client(params.range.start.line, params.range.start.character)

    def action(title: str, command: str, *arguments: object) -> types.Command:
        return types.Command(title=PREFIX + title, command=command, arguments=[uri, *arguments])

    actions: list[types.Command] = []
    try:
        case, turn = _at(suite.cases, line)
    except LookupError:
        pass  # not in a case: only Run all
    else:
        if turn is not None and len(case.turns) > 1:
            title = f"Run turn {turn.index} of case {_label(case)}"
            actions.append(action(title, RUN_TURN, case.index, turn.index))
        actions.append(action(f"Run case {_label(case)}", RUN_CASE, case.index))
    if suite.cases:
        actions.append(action("Run all test cases", RUN_ALL))
    return actions
