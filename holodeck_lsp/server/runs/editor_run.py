"""`holodeck.runAll` / `runCase` / `runTurn` / `regradeCase`: run cases of an open document
through the run lifecycle (runner/lifecycle/) — the CLI's run path, so the editor's results
are masked, journaled, stored and counted for `--last-failed` the same way — in a worker
thread with its own loop, and show each case as it finishes. What each command asks the
lifecycle for is `editor_request`.

* Trusted workspaces only: a run executes the agent's function tools and code graders. In an
  untrusted workspace the command is refused with a `window/showMessage` saying why.
* Answers: the `cassettePath` cassette is replayed; without one, the live backend's init
  error (missing extra, API key, …) is shown as is. A re-grade replays the last answers.
* holodeck-lsp.yaml beside the agent (else ~/.holodeck/) paces and prices the run as it does
  `holodeck-lsp run`'s: `limits:`, `retry_budget:` and `prices:` through the one function
  both call (`runner.project_limits`); a bad file refuses the run, naming the key.
* A "Run all" is journaled and stored in the run history, as `holodeck-lsp run` stores a
  run (see `editor_request`; `holodeck.saveRuns: false` turns it off).
* The command's response is the report's results and summary.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable
from datetime import datetime
from typing import TYPE_CHECKING, Any, Final

from lsprotocol import types

from holodeck_lsp.runner.execution.heartbeat import heartbeat
from holodeck_lsp.server.runs.arguments import RegradeCase, RunArguments
from holodeck_lsp.server.runs.cassette_setting import RunRefused
from holodeck_lsp.server.runs.editor_request import editor_request
from holodeck_lsp.server.runs.progress import RunProgress
from holodeck_lsp.server.runs.run_document import load_for_run
from holodeck_lsp.server.runs.state import Runner
from holodeck_lsp.server.runs.worker_thread import RunHandle, ServerSink, in_own_thread
from holodeck_lsp.server.trust import Untrusted, open_run_session, refusal, session_opener

if TYPE_CHECKING:
    from holodeck_lsp.runner.execution.events import CaseRef
    from holodeck_lsp.runner.lifecycle.preparing import PreparedRun
    from holodeck_lsp.runner.lifecycle.starting import StartedRun
    from holodeck_lsp.runner.run_session import RunOutcome, RunRequest, RunSession
    from holodeck_lsp.schema.agent import Agent
    from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult

log = logging.getLogger("holodeck_lsp.server.runs")

NO_ANSWERS: Final = "run the case first: there are no answers to re-grade"
#: The progress report while the run's backend is built (before any turn runs).
STARTING: Final = "starting backend…"


def show(runner: Runner, kind: types.MessageType, message: str) -> None:
    runner.server.window_show_message(types.ShowMessageParams(type=kind, message=message))


async def execute(runner: Runner, arguments: RunArguments) -> dict[str, Any]:
    """Refuse (untrusted, busy, cannot start: shown, answered `refused`) or run."""
    uri = arguments.uri
    untrusted = refusal(runner.server.settings)
    if untrusted is not None:
        show(runner, types.MessageType.Warning, untrusted)
        return {"status": "refused", "reason": "untrusted"}
    if uri in runner.running:
        show(runner, types.MessageType.Info, "HoloDeck: a run of this file is in progress")
        return {"status": "refused", "reason": "busy"}
    handle = RunHandle()
    runner.running[uri] = handle
    try:
        return await _run(runner, arguments, handle)
    except RunRefused as refused:
        show(runner, types.MessageType.Error, f"HoloDeck: {refused}")
        return {"status": "refused", "reason": str(refused)}
    finally:
        runner.running.pop(uri, None)


async def open_session(runner: Runner, request: RunRequest) -> RunSession:
    """`trust.open_run_session` (it may import an SDK and the agent's tools and graders);
    its refusal — an untrusted workspace, a session that cannot start — as `RunRefused`."""
    from holodeck_lsp.runner.run_session import RunCannotStart

    try:
        return await open_run_session(runner.server.settings, request)
    except (RunCannotStart, Untrusted) as error:
        raise RunRefused(str(error)) from None


async def run_in_worker(
    session: RunSession,
    handle: RunHandle,
    on_turn: Callable[[CaseRef, TurnResult], None],
    on_case: Callable[[CaseRef, TestResult], None],
    on_start: Callable[[CaseRef], None] | None = None,
) -> RunOutcome:
    """Run the session in a worker thread (see `worker_thread`); the callbacks are called on
    the server's loop, each finished case's before this returns."""
    sink = ServerSink(asyncio.get_running_loop(), on_turn, on_case, on_start)

    async def in_worker() -> RunOutcome:
        cancel = asyncio.Event()
        handle.attach(asyncio.get_running_loop(), cancel)
        return await session.run(sink, cancel)

    outcome = await in_own_thread(in_worker, handle.cancel)
    await asyncio.sleep(0)  # let the last case's callback run before answering
    return outcome


def _what(agent: Agent, case: int | None, turn: int | None) -> str:
    """What a run runs, for its progress title: `2 cases`, `two-turns turn 1`."""
    cases = agent.test_cases or []
    if case is None:
        return f"{len(cases)} case{'s' if len(cases) != 1 else ''}"
    name = cases[case].name if case < len(cases) else None
    return (name or f"test_cases[{case}]") + (f" turn {turn}" if turn is not None else "")


async def _run(runner: Runner, arguments: RunArguments, handle: RunHandle) -> dict[str, Any]:
    from holodeck_lsp.runner.lifecycle.preparing import BadRunRequest, prepare_run
    from holodeck_lsp.runner.run_session import RunRequest, redactor_for

    uri, case, turn = arguments.uri, arguments.case_index, arguments.turn
    regrade = isinstance(arguments, RegradeCase)
    document = await load_for_run(runner, uri, to_run=True)
    answered = runner.answers.get(uri, {}).get(case) if regrade and case is not None else None
    try:
        # Applies holodeck-lsp.yaml's limits and prices, as `holodeck-lsp run` does.
        prepared = prepare_run(editor_request(runner, document, arguments, answered))
    except BadRunRequest as error:
        raise RunRefused(str(error)) from None
    # The progress begins before the backend is built: building it may import an SDK for
    # seconds, and the user should see at once that the click was heard.
    progress = RunProgress(runner.server)
    request = RunRequest(document.agent, document.path, agent_text=document.agent_text)
    what = redactor_for(request).text(_what(document.agent, case, turn))
    await progress.begin(f"HoloDeck: run {what}", handle)
    progress.report(STARTING)
    started = await _start(runner, prepared, progress)
    session = started.session
    if regrade and answered is None:
        await session.aclose()
        started.journal.discard()
        progress.end(f"not run: {NO_ANSWERS}")
        raise RunRefused(NO_ANSWERS)
    progress.planned(session.planned)

    def on_case(ref: CaseRef, result: TestResult) -> None:
        progress.case_finished(ref)
        if not regrade and (result.turns is None or turn is None):
            runner.answers.setdefault(uri, {})[ref.index] = result
        runner.finished(uri, ref.index, document.case_texts.get(ref.index), result, turn, regrade)

    outcome = await _outcome(started, handle, progress, on_case, uri)
    report = await _finish(runner, started, outcome, uri)
    if not regrade:
        runner.reports[uri] = report
        runner.redactors[uri] = session.redactor
    return _answer(report, progress)


async def _start(runner: Runner, prepared: PreparedRun, progress: RunProgress) -> StartedRun:
    """The run's journal and session, opened in a thread (an SDK import takes seconds);
    refused as `RunRefused` in an untrusted workspace or when the session cannot start."""
    from holodeck_lsp.runner.lifecycle.starting import start_run
    from holodeck_lsp.runner.run_session import RunCannotStart

    opener = session_opener(runner.server.settings)
    now = datetime.now().astimezone()
    try:
        return await asyncio.to_thread(
            lambda: start_run(prepared, now=now, warn=_log_warning, open_session=opener)
        )
    except (RunCannotStart, Untrusted) as error:
        progress.end(f"not run: {error}")
        raise RunRefused(str(error)) from None


async def _outcome(
    started: StartedRun,
    handle: RunHandle,
    progress: RunProgress,
    on_case: Callable[[CaseRef, TestResult], None],
    uri: str,
) -> RunOutcome:
    """Run the session in its worker; a crash (a bug) as `RunRefused`, its journal closed."""
    from holodeck_lsp.runner.run_session import RunFailed

    session = started.session
    try:
        # Once a second between turns too: a stall on a rate limit still moves the report.
        async with heartbeat(progress.heartbeat):
            return await run_in_worker(
                session, handle, progress.turn_finished, on_case, progress.case_started
            )
    except Exception as error:
        await session.aclose()
        started.journal.close()
        detail = str(error) if isinstance(error, RunFailed) else f"{type(error).__name__}: {error}"
        detail = session.redactor.text(detail)
        log.exception("run of %s failed", uri)
        progress.end(f"failed: {detail}")
        raise RunRefused(f"the run failed: {detail}") from error


async def _finish(runner: Runner, started: StartedRun, outcome: RunOutcome, uri: str) -> TestReport:
    """The lifecycle's end of the run, in a thread (it writes the run folder and asks git for
    the commit): journal closed, stored, counted for `--last-failed`. A history that cannot
    be written is only logged: it is never worth failing a run."""
    from holodeck_lsp.runner.lifecycle.finishing import finish_run
    from holodeck_lsp.server.runs.regressions import regressions_of

    try:
        finished = await asyncio.to_thread(lambda: finish_run(started, outcome, warn=_log_warning))
    except Exception:  # a bug in storing must not turn a finished run into a failed one
        log.exception("storing the run of %s failed", started.prepared.request.agent_path)
        started.journal.close()
        return outcome.report
    if finished.stored is not None:
        regressions_of(runner).stored[uri] = finished.stored.id
        runner.refresh(uri)  # the marks now compare with the run before this one
    return finished.outcome.report


def _answer(report: TestReport, progress: RunProgress) -> dict[str, Any]:
    cancelled = report.environment.get("cancelled") == "true"
    summary = report.summary
    progress.end(
        f"{summary.passed} passed, {summary.failed} failed"
        + (f", {summary.errored} errored" if summary.errored else "")
        + (f", {summary.not_run} not run" if summary.not_run else "")
        + (" (cancelled)" if cancelled else "")
    )
    return {
        "status": "cancelled" if cancelled else "done",
        "summary": summary.model_dump(mode="json"),
        "results": [result.model_dump(mode="json") for result in report.results],
    }


def _log_warning(message: str) -> None:
    log.warning("%s", message)
