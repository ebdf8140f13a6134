"""`holodeck.runAll` / `runCase` / `runTurn` / `regradeCase`: run cases of an open document
through `runner.run_session` — the CLI's run path, so the editor's results are masked the
same way — in a worker thread with its own loop, and show each case as it finishes.

* Trusted workspaces only: a run executes the agent's function tools and code graders. In an
  untrusted workspace the command is refused with a `window/showMessage` saying why.
* Answers: the `cassettePath` cassette (see `cassette_setting`) is replayed; without one, the
  live backend is built with the `holodeck.backends` overrides, and its init error (missing
  extra, API key, …) is shown as is. A re-grade replays the case's last answers.
* holodeck-lsp.yaml beside the agent (else ~/.holodeck/) paces and prices the run as it does
  `holodeck-lsp run`'s: `limits:`, `retry_budget:` and `prices:` through the one function
  both call (`runner.project_limits`); a bad file refuses the run, naming the key.
* A "Run all" is stored in the run history, as `holodeck-lsp run` stores a run (see
  `run_saving`; `holodeck.saveRuns: false` turns it off).
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
from holodeck_lsp.server.runs.cassette_setting import RunRefused, cassette_path
from holodeck_lsp.server.runs.progress import RunProgress
from holodeck_lsp.server.runs.run_document import load_for_run
from holodeck_lsp.server.runs.state import Runner
from holodeck_lsp.server.runs.worker_thread import RunHandle, ServerSink, in_own_thread
from holodeck_lsp.server.trust import Untrusted, open_run_session, refusal

if TYPE_CHECKING:
    from holodeck_lsp.runner.execution.events import CaseRef
    from holodeck_lsp.runner.run_session import Answers, RunOutcome, RunRequest, RunSession
    from holodeck_lsp.schema.agent import Agent
    from holodeck_lsp.schema.results import TestResult, TurnResult

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
    from holodeck_lsp.runner.cassette import Cassette, transcript_of
    from holodeck_lsp.runner.project_limits import ProjectLimitsError, apply_project_limits
    from holodeck_lsp.runner.run_session import (
        Live,
        Replay,
        RunFailed,
        RunRequest,
        Transcript,
        redactor_for,
    )
    from holodeck_lsp.runner.selection import Selection

    uri, case, turn = arguments.uri, arguments.case_index, arguments.turn
    regrade = isinstance(arguments, RegradeCase)
    document = await load_for_run(runner, uri, to_run=True)
    agent, path = document.agent, document.path
    answered = runner.answers.get(uri, {}).get(case) if regrade and case is not None else None
    try:
        prices = apply_project_limits(path)
    except ProjectLimitsError as error:
        raise RunRefused(str(error)) from None
    answers: Answers
    if regrade:
        cases = [transcript_of(answered, case)] if answered is not None and case is not None else []
        answers = Transcript(Cassette(agent=agent.name, cases=cases))
    else:
        cassette = cassette_path(runner.server, path.parent)
        answers = Replay(cassette) if cassette is not None else Live()
    request = RunRequest(
        agent,
        path,
        answers=answers,
        selection=Selection(case=case, turn=turn),
        backend_overrides=runner.server.settings.backends,
        agent_text=document.agent_text,
        prices=prices,
    )
    # The progress begins before the backend is built: building it may import an SDK for
    # seconds, and the user should see at once that the click was heard.
    progress = RunProgress(runner.server)
    what = redactor_for(request).text(_what(agent, case, turn))
    await progress.begin(f"HoloDeck: run {what}", handle)
    progress.report(STARTING)
    try:
        session = await open_session(runner, request)
    except RunRefused as refused:
        progress.end(f"not run: {refused}")
        raise
    if regrade and answered is None:
        await session.aclose()
        progress.end(f"not run: {NO_ANSWERS}")
        raise RunRefused(NO_ANSWERS)
    started = datetime.now().astimezone()
    planned = session.planned
    progress.planned(
        sum(1 if item.graded_turn is not None else item.turn_count for item in planned)
    )

    def on_case(ref: CaseRef, result: TestResult) -> None:
        progress.case_finished(ref)
        if not regrade and (result.turns is None or turn is None):
            runner.answers.setdefault(uri, {})[ref.index] = result
        runner.finished(uri, ref.index, document.case_texts.get(ref.index), result, turn, regrade)

    try:
        # Once a second between turns too: a stall on a rate limit still moves the report.
        async with heartbeat(progress.heartbeat):
            outcome = await run_in_worker(
                session, handle, progress.turn_finished, on_case, progress.case_started
            )
    except Exception as error:
        await session.aclose()
        detail = str(error) if isinstance(error, RunFailed) else f"{type(error).__name__}: {error}"
        detail = session.redactor.text(detail)
        log.exception("run of %s failed", uri)
        progress.end(f"failed: {detail}")
        raise RunRefused(f"the run failed: {detail}") from error
    report = outcome.report
    cancelled = report.environment.get("cancelled") == "true"
    if not regrade and case is None and runner.server.settings.save_runs:
        from holodeck_lsp.server.runs.regressions import regressions_of
        from holodeck_lsp.server.runs.run_saving import store_run_all

        replay_of = answers.path if isinstance(answers, Replay) else None
        stored = await store_run_all(
            session, document, report, started=started, cancelled=cancelled, replay_of=replay_of
        )
        if stored is not None:
            report = report.model_copy(update={"run_id": stored.id})
            regressions_of(runner).stored[uri] = stored.id
            runner.refresh(uri)  # the marks now compare with the run before this one
    if not regrade:
        runner.reports[uri] = report
        runner.redactors[uri] = session.redactor
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
