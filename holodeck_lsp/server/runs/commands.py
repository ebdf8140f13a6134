"""Registration of the run feature: code lenses, inlay hints, the run commands (arguments
parsed by `arguments`), the re-grade-on-edit listener and the run results' diagnostics.
Every handler is guarded (`server.guard.answer_or`): a bug is logged and answered empty,
never a crash of the server."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeVar

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.guard import answer_or
from holodeck_lsp.server.runs.arguments import (
    BadArguments,
    CancelRun,
    CompareWithBaseline,
    LastRunReport,
    RegradeCase,
    RunAll,
    RunArguments,
    RunCase,
    RunTurn,
    WhyNoRun,
)
from holodeck_lsp.server.runs.compare_baseline import compare_with_baseline
from holodeck_lsp.server.runs.conversation import Conversation, conversation
from holodeck_lsp.server.runs.editor_run import execute, show
from holodeck_lsp.server.runs.hints import inlay_hints
from holodeck_lsp.server.runs.inline_results import InlineResults
from holodeck_lsp.server.runs.lenses import RefusalWatch, code_lenses, run_refusal
from holodeck_lsp.server.runs.regrade_on_edit import RegradeOnEdit
from holodeck_lsp.server.runs.regressions import regressions_of
from holodeck_lsp.server.runs.report_page import page
from holodeck_lsp.server.runs.state import Runner

if TYPE_CHECKING:
    from holodeck_lsp.server.features.diagnostics.engine import DiagnosticsEngine

_BAD: dict[str, str] = {"status": "refused", "reason": "bad arguments"}
_Arguments = TypeVar("_Arguments")


def _failed() -> dict[str, str]:
    return {"status": "refused", "reason": "the command failed (see the server log)"}


def cancel(runner: Runner, arguments: CancelRun) -> dict[str, str]:
    """`holodeck.cancelRun [uri]`: stop the document's run (as cancelling its progress
    does); answers `cancelling` or `idle` when nothing runs."""
    handle = runner.running.get(arguments.uri) if arguments.uri is not None else None
    if handle is None:
        return {"status": "idle"}
    handle.cancel()
    return {"status": "cancelling"}


async def last_report(runner: Runner, arguments: LastRunReport) -> dict[str, str]:
    """`holodeck.lastRunReport [uri, {"format": …}?]`: the document's last run as Markdown
    (the report `holodeck-lsp run --report-md` writes) or, with `{"format": "html"}`, as
    the HTML page (`report_page`); secrets masked, as every run result."""
    from holodeck_lsp.reports.run.markdown import render

    report = runner.reports.get(arguments.uri) if arguments.uri is not None else None
    if report is None or arguments.uri is None:
        return {"status": "none", "reason": "no run of this file in this session yet"}
    if arguments.format == "html":
        return {"status": "done", "html": await page(runner, arguments.uri, report)}
    return {"status": "done", "markdown": render(report)}


def why_no_run(runner: Runner, arguments: WhyNoRun) -> dict[str, str]:
    """`holodeck.whyNoRun [uri]` (the lens shown instead of the run lenses): show why a run
    of the document would be refused; answers `refused` with the reason, or `runnable`."""
    refusal = run_refusal(runner, arguments.uri) if arguments.uri is not None else None
    if refusal is None:
        return {"status": "runnable"}
    show(runner, types.MessageType.Warning, refusal[1])
    return {"status": "refused", "reason": refusal[1]}


def register(server: HolodeckServer, engine: DiagnosticsEngine) -> Runner:
    runner = Runner(server, InlineResults(server), engine)
    engine.contributors.append(runner.results.contribute)
    engine.check_listeners.append(RegradeOnEdit(runner).checked)
    engine.check_listeners.append(RefusalWatch(runner).checked)
    _register_views(server, runner)
    _register_run_commands(server, runner)
    _register_report_commands(server, runner)
    server.settings_listeners.append(_baseline_watch(server))
    regressions_of(runner)  # created with the runner: hover and discovery read it too
    _register_refusal_command(server, runner)  # last: the advertised commands keep their order
    return runner


def _register_views(server: HolodeckServer, runner: Runner) -> None:
    """The code lenses and inlay hints of a suite document."""

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    @answer_or(list, "codeLens")
    async def code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        await server.settings_read()  # the lenses depend on the cassette, the baseline
        return await code_lenses(runner, params.text_document.uri)

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    @answer_or(list, "inlayHint")
    async def inlay_hint(params: types.InlayHintParams) -> list[types.InlayHint]:
        await server.settings_read()
        return await inlay_hints(runner, params.text_document.uri)


def _register_run_commands(server: HolodeckServer, runner: Runner) -> None:
    """The commands that start a run (all, a case, a turn, a re-grade) or cancel it."""

    def run_command(command: str, parse: Callable[[list[Any]], RunArguments]) -> None:
        @server.command(command)
        @answer_or(_failed, command)
        async def handler(*arguments: Any) -> Any:
            try:
                parsed = parse(list(arguments))
            except BadArguments as bad:
                show(runner, types.MessageType.Error, f"HoloDeck: bad run command arguments: {bad}")
                return dict(_BAD)
            await server.settings_read()  # a run started right after start-up: the cassette
            return await execute(runner, parsed)

    run_command(RunAll.command, RunAll.parse)
    run_command(RunCase.command, RunCase.parse)
    run_command(RunTurn.command, RunTurn.parse)
    run_command(RegradeCase.command, RegradeCase.parse)

    @server.command(CancelRun.command)
    @answer_or(_failed, CancelRun.command)
    def cancel_run(*arguments: Any) -> Any:
        return cancel(runner, CancelRun.parse(list(arguments)))


def _register_refusal_command(server: HolodeckServer, runner: Runner) -> None:
    @server.command(WhyNoRun.command)
    @answer_or(_failed, WhyNoRun.command)
    def explain_refusal(*arguments: Any) -> Any:
        return why_no_run(runner, WhyNoRun.parse(list(arguments)))


def _register_report_commands(server: HolodeckServer, runner: Runner) -> None:
    """The commands answering a document's last report or its comparison with the baseline."""

    def report_command(
        command: str,
        parse: Callable[[list[Any]], _Arguments],
        answer: Callable[[Runner, _Arguments], Awaitable[Any]],
    ) -> None:
        """A command answering a document's report or comparison; bad arguments are shown
        and answered `refused` with the reason."""

        @server.command(command)
        @answer_or(_failed, command)
        async def handler(*arguments: Any) -> Any:
            try:
                parsed = parse(list(arguments))
            except BadArguments as bad:
                show(runner, types.MessageType.Error, f"HoloDeck: bad command arguments: {bad}")
                return {"status": "refused", "reason": str(bad)}
            await server.settings_read()  # the baseline setting
            return await answer(runner, parsed)

    report_command(LastRunReport.command, LastRunReport.parse, last_report)
    report_command(CompareWithBaseline.command, CompareWithBaseline.parse, compare_with_baseline)
    report_command(Conversation.command, Conversation.parse, conversation)


def _baseline_watch(server: HolodeckServer) -> Callable[[], None]:
    """A settings listener: another baseline marks other turns, so the client is asked for
    the lenses again (each view is keyed by the setting, so the next request computes the new
    comparison)."""
    baseline = [server.settings.baseline]

    def baseline_changed() -> None:
        if server.settings.baseline == baseline[0]:
            return
        baseline[0] = server.settings.baseline
        workspace = server.client_capabilities.workspace
        if workspace and workspace.code_lens and workspace.code_lens.refresh_support:
            server.workspace_code_lens_refresh(None)

    return baseline_changed
