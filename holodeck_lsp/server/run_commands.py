"""Running a suite from the editor: code lenses (`▶ Run all`, `▶ Run case`, `▶ Run turn N`), the
`holodeck.runAll` / `holodeck.runCase` / `holodeck.runTurn` commands, progress and results.

* Trusted workspaces only: a run executes the agent's function tools and code graders. In an
  untrusted workspace the command is refused with a `window/showMessage` saying why.
* Backend: the cassette of the `cassettePath` setting (relative to the agent's folder, else to
  a workspace folder) is replayed; without one, `create_backend` builds the live backend and
  its `BackendInitError` (missing extra, API key, …) is shown as is.
* The run happens in a worker thread with its own event loop: SDKs, function tools and code
  graders may block, and the server's loop must keep answering (diagnostics, hover, …).
  Progress events are handed back to the server's loop.
* `window/workDoneProgress`: created when the client supports it; one report per turn;
  cancellable — `window/workDoneProgress/cancel` stops the run (the executor still returns
  the partial report, with the rest skipped as `cancelled`).
* Each finished case is stored (see `inline_results`) and announced with the custom
  notification `holodeck/runResult` `{uri, caseIndex, turn, result}` (`result` is the
  `TestResult` JSON). The command's response is the report's results and summary.
* Re-grading: `holodeck.regradeCase` grades a case's last answers again. And on every edit
  (each accepted check of a trusted document without errors), a case whose text changed is
  re-graded from its recorded answers — this session's last run of it, else the case in the
  `cassettePath` cassette — in a few milliseconds and without calling the model; its results
  say "re-graded from transcript" (`regraded: true` in `holodeck/runResult`). An edited
  turn `input` no longer matches the transcript: that turn reports the stale answer.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import uuid
from collections.abc import Callable, Coroutine
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer, import_runner
from holodeck_lsp.server.documents import uri_to_path
from holodeck_lsp.server.inline_results import (
    FAILED,
    PASSED,
    InlineResults,
    case_status,
    mark,
    turns_of,
)
from holodeck_lsp.server.parsed import parsed_documents

if TYPE_CHECKING:
    from holodeck_lsp.runner.backend import AgentBackend
    from holodeck_lsp.runner.cassette import Cassette, CassetteCase
    from holodeck_lsp.runner.executor import RunOptions
    from holodeck_lsp.runner.progress import CaseRef
    from holodeck_lsp.runner.selection import Selection
    from holodeck_lsp.schema.agent import Agent
    from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult
    from holodeck_lsp.server.analysis import Analysis

log = logging.getLogger(__name__)

_T = TypeVar("_T")

RUN_ALL: Final = "holodeck.runAll"
RUN_CASE: Final = "holodeck.runCase"
RUN_TURN: Final = "holodeck.runTurn"
REGRADE_CASE: Final = "holodeck.regradeCase"
CANCEL_RUN: Final = "holodeck.cancelRun"
LAST_REPORT: Final = "holodeck.lastRunReport"
RESULT_NOTIFICATION: Final = "holodeck/runResult"
UNTRUSTED_MESSAGE: Final = (
    "HoloDeck: running tests is disabled in an untrusted workspace — a run executes the "
    "agent's function tools and code graders. Trust this workspace in your editor to run it."
)


class RunRefused(Exception):
    """The run cannot start; the message is shown to the user."""


@dataclass(slots=True)
class RunHandle:
    """Cancels a run whose event loop lives in another thread (thread-safe)."""

    _lock: threading.Lock = field(default_factory=threading.Lock)
    _loop: asyncio.AbstractEventLoop | None = None
    _event: asyncio.Event | None = None
    cancel_requested: bool = False

    def attach(self, loop: asyncio.AbstractEventLoop, event: asyncio.Event) -> None:
        with self._lock:
            self._loop, self._event = loop, event
            if self.cancel_requested:
                event.set()

    def cancel(self) -> None:
        with self._lock:
            self.cancel_requested = True
            if self._loop is not None and self._event is not None:
                self._loop.call_soon_threadsafe(self._event.set)


class _ServerSink:
    """The executor's progress callbacks (on the run's loop) passed to the server's loop."""

    def __init__(
        self,
        loop: asyncio.AbstractEventLoop,
        on_turn: Callable[[CaseRef, TurnResult], None],
        on_case: Callable[[CaseRef, TestResult], None],
    ) -> None:
        self._loop, self._on_turn, self._on_case = loop, on_turn, on_case

    def case_started(self, case: CaseRef) -> None:
        return None

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self._loop.call_soon_threadsafe(self._on_turn, case, turn)

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self._loop.call_soon_threadsafe(self._on_case, case, result)


def _in_own_thread(work: Callable[[], Coroutine[Any, Any, _T]]) -> asyncio.Future[_T]:
    """Run `work()` in a new daemon thread with its own event loop (a daemon, so a run still
    going when the server exits does not keep the process alive)."""
    loop = asyncio.get_running_loop()
    future: asyncio.Future[_T] = loop.create_future()

    def settle(result: _T | None, error: BaseException | None) -> None:
        if future.done():
            return
        if error is not None:
            future.set_exception(error)
        else:
            future.set_result(result)  # type: ignore[arg-type]

    def main() -> None:
        try:
            result = asyncio.run(work())
        except BaseException as error:  # handed to the awaiting side, which reports it
            loop.call_soon_threadsafe(settle, None, error)
        else:
            loop.call_soon_threadsafe(settle, result, None)

    threading.Thread(target=main, name="holodeck-run", daemon=True).start()
    return future


def answers_as_cassette(result: TestResult, index: int) -> CassetteCase:
    """A case's answers (responses, tool calls, usage, send errors) in cassette form, up to
    the first turn that was never sent. Matched by index (the name may have been edited)."""
    from holodeck_lsp.runner.cassette import (
        CassetteCase,
        CassetteToolCall,
        CassetteTurn,
        CassetteUsage,
    )

    turns: list[CassetteTurn] = []
    for turn in turns_of(result):
        if turn.skipped:
            break
        usage = turn.token_usage
        turns.append(
            CassetteTurn(
                input=turn.input,
                response=turn.response,
                tool_calls=[
                    CassetteToolCall(
                        name=call.name, args=call.args, result=call.result, error=call.error
                    )
                    for call in turn.tool_invocations
                ],
                token_usage=CassetteUsage(
                    prompt_tokens=usage.prompt_tokens,
                    completion_tokens=usage.completion_tokens,
                    total_tokens=usage.total_tokens,
                )
                if usage is not None
                else None,
                # A turn without a response failed to send: replay its first error.
                error=(turn.errors[0] if turn.errors else "no response")
                if turn.response is None
                else None,
                duration_ms=turn.execution_time_ms,
            )
        )
    return CassetteCase(name=None, index=index, turns=turns)


def _read_text(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8-sig")  # as the checker reads it
    except (OSError, UnicodeDecodeError):
        return None


def _int_or_none(value: object) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) else None


class Runner:
    def __init__(self, server: HolodeckServer, results: InlineResults) -> None:
        self.server = server
        self.results = results
        self.running: dict[str, RunHandle] = {}
        #: The last full run of each case, kept across edits: what a re-grade replays.
        self.answers: dict[str, dict[int, TestResult]] = {}
        #: Per document and case, the case text last graded — or, for a case never graded,
        #: its text when the document was first checked: a re-grade on edit starts when the
        #: case's text moves away from it.
        self.graded_texts: dict[str, dict[int, str]] = {}
        self._cassette: tuple[Path, float, Cassette] | None = None
        self._regrades: set[asyncio.Future[None]] = set()
        self._warmed = False
        #: The last report of a run (not a re-grade) started from each document.
        self.reports: dict[str, TestReport] = {}

    # -- lenses and hints ----------------------------------------------------------------------

    def agent_of(self, uri: str) -> str | None:
        """The agent a document's cases belong to: itself, or for a `test_cases_file`
        include the (first, by URI) agent that includes it."""
        engine = self.server.diagnostics_engine
        if engine is None or engine.is_agent(uri):
            return uri
        including = sorted(engine.agents_including(uri))
        return including[0] if including else None

    async def code_lenses(self, uri: str) -> list[types.CodeLens]:
        if self.agent_of(uri) is None:
            return []
        parsed = await parsed_documents(self.server).get(uri)
        suite, cases = self.results.current(parsed, uri)
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
            if case.index in self.answers.get(uri, {}):
                lenses.append(lens(case.start, "↻ Re-grade", REGRADE_CASE, case.index))
            record = cases.get(case.index)
            for turn in case.turns:
                done = record.turns.get(turn.index) if record is not None else None
                prefix = "▶" if done is None else mark(done)
                lenses.append(
                    lens(
                        turn.start,
                        f"{prefix} Run turn {turn.index}",
                        RUN_TURN,
                        case.index,
                        turn.index,
                    )
                )
        return lenses

    async def inlay_hints(self, uri: str) -> list[types.InlayHint]:
        if uri not in self.results.records:
            return []
        parsed = await parsed_documents(self.server).get(uri)
        suite, cases = self.results.current(parsed, uri, every_case=False)
        if parsed is None or suite is None:
            return []
        return self.results.inlay_hints(suite, cases, parsed.converter)

    # -- re-grading on edit ----------------------------------------------------------------------

    def checked(self, uri: str, analysis: Analysis) -> None:
        """A check of the open document's current version was accepted (a `CheckListener`):
        re-grade each edited case whose recorded answers are at hand — this session's last
        run of it, else the `cassettePath` cassette — without calling the model."""
        from holodeck_lsp.server.run_locations import case_texts

        if not self.server.settings.trusted:
            return  # nothing is ever run or re-graded (trust restarts the server)
        if uri not in self.answers and not self.server.settings.cassette_path:
            self.graded_texts.pop(uri, None)  # no answers to re-grade from
            return
        parsed = parsed_documents(self.server).peek(uri, analysis.version)
        if parsed is None:
            return
        # The cases' own text only: cheap on every check (the full locations are not needed).
        texts = case_texts(parsed.document.root, parsed.document.text)
        graded = self.graded_texts.get(uri)
        if graded is None:
            self.graded_texts[uri] = dict(texts)  # first sight: nothing was edited yet
            if not self._warmed:
                self._warmed = True
                threading.Thread(target=import_runner, name="holodeck-warm-up", daemon=True).start()
            return
        agent = analysis.agent
        if agent is None or uri in self.running:
            return  # re-graded on the next good check: the texts still differ then
        records = self.results.records.get(uri, {})
        transcripts: dict[int, CassetteCase] = {}
        for index, text in texts.items():
            record = records.get(index)
            if graded.get(index) == text or (record is not None and record.case_text == text):
                continue
            graded[index] = text
            transcript = self._transcript(uri, index, agent, analysis.agent_path.parent)
            if transcript is not None:
                transcripts[index] = transcript
        if transcripts:
            task = asyncio.ensure_future(
                self._regrade(uri, agent, analysis.agent_path, texts, transcripts)
            )
            self._regrades.add(task)  # a reference, so the task is not collected early
            task.add_done_callback(self._regrades.discard)

    def _transcript(
        self, uri: str, index: int, agent: Agent, agent_dir: Path
    ) -> CassetteCase | None:
        answered = self.answers.get(uri, {}).get(index)
        if answered is not None:
            return answers_as_cassette(answered, index)
        cassette = self._settings_cassette(agent_dir)
        if cassette is None:
            return None
        cases = agent.test_cases or []
        name = cases[index].name if index < len(cases) else None
        found = next((c for c in cassette.cases if name is not None and c.name == name), None)
        if found is None:
            found = next((c for c in cassette.cases if c.index == index), None)
        # Matched here, by name else index: the replay then matches it by index.
        return None if found is None else found.model_copy(update={"name": None, "index": index})

    def _settings_cassette(self, agent_dir: Path) -> Cassette | None:
        """The `cassettePath` cassette, read again only when the file changed."""
        from holodeck_lsp.runner.cassette import CassetteFormatError, load_cassette

        try:
            path = self._cassette_path(agent_dir)
            if path is None:
                return None
            mtime = path.stat().st_mtime
            if self._cassette is not None and self._cassette[:2] == (path, mtime):
                return self._cassette[2]
            cassette = load_cassette(path)
        except (RunRefused, OSError, CassetteFormatError) as error:
            log.info("no cassette to re-grade from: %s", error)
            return None
        self._cassette = (path, mtime, cassette)
        return cassette

    async def _regrade(
        self,
        uri: str,
        agent: Agent,
        path: Path,
        texts: dict[int, str],
        transcripts: dict[int, CassetteCase],
    ) -> None:
        from holodeck_lsp.runner.cassette import Cassette, ReplayBackend
        from holodeck_lsp.runner.executor import RunOptions
        from holodeck_lsp.runner.selection import Selection

        options = RunOptions.for_agent(agent, config_path=path, environment={"mode": "regrade"})
        for index, transcript in transcripts.items():
            backend = ReplayBackend(Cassette(agent=agent.name, cases=[transcript]), agent)

            def on_case(ref: CaseRef, result: TestResult) -> None:
                self._finished(uri, ref.index, texts.get(ref.index), result, None, True)

            try:
                await self._execute(
                    agent,
                    path,
                    backend,
                    Selection(case=index),
                    options,
                    RunHandle(),
                    lambda ref, turn: None,
                    on_case,
                )
            except Exception:
                log.exception("re-grading case %d of %s failed", index, uri)

    # -- running -------------------------------------------------------------------------------

    def _show(self, kind: types.MessageType, message: str) -> None:
        self.server.window_show_message(types.ShowMessageParams(type=kind, message=message))

    async def execute(
        self,
        arguments: list[Any],
        *,
        case_wanted: bool,
        turn_wanted: bool,
        regrade: bool = False,
    ) -> Any:
        uri = arguments[0] if arguments and isinstance(arguments[0], str) else None
        case = _int_or_none(arguments[1]) if len(arguments) > 1 else None
        turn = _int_or_none(arguments[2]) if len(arguments) > 2 else None
        if uri is None or (case_wanted and case is None) or (turn_wanted and turn is None):
            self._show(types.MessageType.Error, "HoloDeck: bad run command arguments")
            return {"status": "refused", "reason": "bad arguments"}
        if not self.server.settings.trusted:
            self._show(types.MessageType.Warning, UNTRUSTED_MESSAGE)
            return {"status": "refused", "reason": "untrusted"}
        if uri in self.running:
            self._show(types.MessageType.Info, "HoloDeck: a run of this file is in progress")
            return {"status": "refused", "reason": "busy"}
        handle = RunHandle()
        self.running[uri] = handle
        try:
            return await self._run(uri, case, turn, handle, regrade=regrade)
        except RunRefused as refused:
            self._show(types.MessageType.Error, f"HoloDeck: {refused}")
            return {"status": "refused", "reason": str(refused)}
        finally:
            self.running.pop(uri, None)

    async def _load(self, uri: str) -> tuple[Agent, Path, dict[int, str]]:
        """The agent to run for the open document `uri` (an agent, or an include of one) and
        the text of each case written in `uri`, by index."""
        from holodeck_lsp.config.loader import LoadOptions, load_agent_text
        from holodeck_lsp.server.run_locations import locate_suite

        document = self.server.workspace.text_documents.get(uri)
        path = uri_to_path(uri)
        if document is None or path is None:
            raise RunRefused("open the agent file to run it")
        parsed = await parsed_documents(self.server).get(uri)
        text = parsed.document.text if parsed else document.source
        agent_uri = self.agent_of(uri)
        if agent_uri is None:
            raise RunRefused(f"no agent file includes {path.name} (test_cases_file)")
        agent_path = uri_to_path(agent_uri)
        if agent_uri != uri and agent_path is not None:
            # The checker reads an include from disk, so the run does too.
            if await asyncio.to_thread(_read_text, path) != text:
                raise RunRefused(
                    f"save {path.name} to run it: a run reads included cases from disk"
                )
            agent_document = self.server.workspace.text_documents.get(agent_uri)
            agent_text = (
                agent_document.source
                if agent_document is not None
                else await asyncio.to_thread(_read_text, agent_path)
            )
            path, text = agent_path, agent_text or ""
        loaded = await asyncio.to_thread(load_agent_text, text, path, LoadOptions(trusted=True))
        if loaded.agent is None or loaded.errors:
            count = len(loaded.errors)
            raise RunRefused(
                f"{path.name} has {count} error{'s' if count != 1 else ''}; fix them to run it"
            )
        suite = locate_suite(parsed.document.root) if parsed is not None else None
        texts: dict[int, str] = {}
        if parsed is not None and suite is not None:
            for located in suite.cases:
                case_text = suite.case_text(parsed.document.text, located.index)
                if case_text is not None:
                    texts[located.index] = case_text
        return loaded.agent, path, texts

    def _cassette_path(self, agent_dir: Path) -> Path | None:
        configured = self.server.settings.cassette_path
        if not configured:
            return None
        given = Path(configured).expanduser()
        if given.is_absolute():
            return given
        candidates = [agent_dir / given]
        for folder in self.server.workspace.folders.values():
            root = uri_to_path(folder.uri)
            if root is not None:
                candidates.append(root / given)
        for candidate in candidates:
            if candidate.is_file():
                return candidate
        tried = ", ".join(str(c) for c in candidates)
        raise RunRefused(
            f"cassette {configured!r} (setting holodeck.cassettePath) not found: {tried}"
        )

    def cancel(self, arguments: list[Any]) -> dict[str, str]:
        """`holodeck.cancelRun [uri]`: stop the document's run (as cancelling its progress
        does); answers `cancelling` or `idle` when nothing runs."""
        uri = arguments[0] if arguments and isinstance(arguments[0], str) else None
        handle = self.running.get(uri) if uri is not None else None
        if handle is None:
            return {"status": "idle"}
        handle.cancel()
        return {"status": "cancelling"}

    def last_report(self, arguments: list[Any]) -> dict[str, str]:
        """`holodeck.lastRunReport [uri]`: the document's last run as Markdown (the report
        `holodeck-lsp run --format markdown` writes)."""
        from holodeck_lsp.engine.reports.markdown import render

        uri = arguments[0] if arguments and isinstance(arguments[0], str) else None
        report = self.reports.get(uri) if uri is not None else None
        if report is None:
            return {"status": "none", "reason": "no run of this file in this session yet"}
        return {"status": "done", "markdown": render(report)}

    def _overridden(self, agent: Agent) -> tuple[Agent, list[str]]:
        from holodeck_lsp.runner.backend_overrides import OverrideError, with_backend_overrides

        try:
            return with_backend_overrides(agent, self.server.settings.backends)
        except OverrideError as error:
            raise RunRefused(str(error)) from error

    async def _backend(self, agent: Agent, agent_dir: Path) -> AgentBackend:
        cassette = self._cassette_path(agent_dir)
        if cassette is not None:
            from holodeck_lsp.runner.cassette import (
                CassetteFormatError,
                ReplayBackend,
                load_cassette,
            )

            try:
                loaded = await asyncio.to_thread(load_cassette, cassette)
            except CassetteFormatError as error:
                raise RunRefused(str(error)) from error
            return ReplayBackend(loaded, agent)
        from holodeck_lsp.runner.backend import BackendInitError
        from holodeck_lsp.runner.backends import create_backend

        try:
            # In a thread: it imports the SDK and loads the agent's function tools.
            return await asyncio.to_thread(create_backend, agent, agent_dir)
        except BackendInitError as error:
            raise RunRefused(str(error)) from error
        except Exception as error:  # a backend constructor bug: still a clear message
            raise RunRefused(
                f"the backend could not start: {type(error).__name__}: {error}"
            ) from error

    def _regrade_backend(self, uri: str, agent: Agent, index: int) -> AgentBackend:
        """The case's last answers as a cassette: re-grading sends nothing to the agent."""
        from holodeck_lsp.runner.cassette import Cassette, ReplayBackend

        result = self.answers.get(uri, {}).get(index)
        if result is None:
            raise RunRefused("run the case first: there are no answers to re-grade")
        cassette = Cassette(agent=agent.name, cases=[answers_as_cassette(result, index)])
        return ReplayBackend(cassette, agent)

    async def _run(
        self, uri: str, case: int | None, turn: int | None, handle: RunHandle, *, regrade: bool
    ) -> Any:
        from holodeck_lsp.runner.executor import RunOptions
        from holodeck_lsp.runner.selection import Selection, SelectionError, plan_cases

        agent, path, case_texts = await self._load(uri)
        selection = Selection(case=case, turn=turn)
        try:
            planned = plan_cases(agent, selection)
        except SelectionError as error:
            raise RunRefused(str(error)) from error
        if not planned:
            raise RunRefused(f"{path.name} has no test cases to run")
        environment: dict[str, str] = {}
        if regrade:
            backend = self._regrade_backend(uri, agent, planned[0].index)
            mode = "regrade"
        else:
            if not self.server.settings.cassette_path:
                agent, overridden = self._overridden(agent)
                if overridden:
                    environment["backend_overrides"] = ", ".join(overridden)
            backend = await self._backend(agent, path.parent)
            mode = "replay" if self.server.settings.cassette_path else "live"
        options = RunOptions.for_agent(
            agent, config_path=path, environment={"mode": mode, **environment}
        )
        total_turns = sum(
            1 if item.graded_turn is not None else item.turn_count for item in planned
        )
        what = (
            f"{len(planned)} cases"
            if case is None
            else (planned[0].case.name or f"test_cases[{planned[0].index}]")
            + (f" turn {turn}" if turn is not None else "")
        )
        token = await self._begin_progress(f"HoloDeck: run {what}", handle)
        done = 0

        def on_turn(ref: CaseRef, result: TurnResult) -> None:
            nonlocal done
            done += 1
            if token is not None:
                self.server.work_done_progress.report(
                    token,
                    types.WorkDoneProgressReport(
                        message=f"{ref.label} turn {result.turn_index} {mark(result)} "
                        f"({done}/{total_turns})",
                        percentage=min(100, done * 100 // max(1, total_turns)),
                        cancellable=True,
                    ),
                )

        def on_case(ref: CaseRef, result: TestResult) -> None:
            if not regrade and (result.turns is None or turn is None):
                self.answers.setdefault(uri, {})[ref.index] = result
            self._finished(uri, ref.index, case_texts.get(ref.index), result, turn, regrade)

        try:
            report = await self._execute(
                agent, path, backend, selection, options, handle, on_turn, on_case
            )
        except Exception as error:
            log.exception("run of %s failed", uri)
            self._end_progress(token, f"failed: {error}")
            raise RunRefused(f"the run failed: {type(error).__name__}: {error}") from error
        if not regrade:
            self.reports[uri] = report
        summary = report.summary
        cancelled = report.environment.get("cancelled") == "true"
        self._end_progress(
            token,
            f"{summary.passed} passed, {summary.failed} failed"
            + (" (cancelled)" if cancelled else ""),
        )
        return {
            "status": "cancelled" if cancelled else "done",
            "summary": summary.model_dump(mode="json"),
            "results": [result.model_dump(mode="json") for result in report.results],
        }

    async def _execute(
        self,
        agent: Agent,
        path: Path,
        backend: AgentBackend,
        selection: Selection,
        options: RunOptions,
        handle: RunHandle,
        on_turn: Callable[[CaseRef, TurnResult], None],
        on_case: Callable[[CaseRef, TestResult], None],
    ) -> TestReport:
        """Run the selection in a worker thread (see the module doc); the callbacks are
        called on the server's loop, each finished case's before this returns."""
        from holodeck_lsp.runner.executor import run_suite

        sink = _ServerSink(asyncio.get_running_loop(), on_turn, on_case)

        async def in_worker() -> TestReport:
            cancel = asyncio.Event()
            handle.attach(asyncio.get_running_loop(), cancel)
            try:
                return await run_suite(
                    agent,
                    path.parent,
                    backend,
                    selection=selection,
                    options=options,
                    progress=sink,
                    cancel=cancel,
                )
            finally:
                await backend.aclose()

        report = await _in_own_thread(in_worker)
        await asyncio.sleep(0)  # let the last case's callback run before answering
        return report

    def _finished(
        self,
        uri: str,
        index: int,
        case_text: str | None,
        result: TestResult,
        turn: int | None,
        regraded: bool,
    ) -> None:
        """Store one finished case, announce it (`holodeck/runResult`) and show it."""
        if case_text is not None:
            # A single-turn case run by its turn is the whole case.
            graded = turn if result.turns is not None else None
            self.results.record(uri, index, case_text, result, graded, regraded=regraded)
            self.graded_texts.setdefault(uri, {})[index] = case_text
        self.server.protocol.notify(
            RESULT_NOTIFICATION,
            {
                "uri": uri,
                "caseIndex": index,
                "turn": turn,
                "regraded": regraded,
                "result": result.model_dump(mode="json"),
            },
        )
        self._refresh(uri)
        self.server.notify_activity()  # the run allocates too (see idle_gc)

    async def _begin_progress(self, title: str, handle: RunHandle) -> str | None:
        window = self.server.client_capabilities.window
        if not (window and window.work_done_progress):
            return None
        token = f"holodeck-run-{uuid.uuid4()}"
        try:
            await self.server.work_done_progress.create_async(token)
        except Exception as error:
            log.warning("workDoneProgress/create failed: %s", error)
            return None
        self.server.work_done_progress.begin(
            token, types.WorkDoneProgressBegin(title=title, cancellable=True, percentage=0)
        )
        future = self.server.work_done_progress.tokens.get(token)
        if future is not None:
            future.add_done_callback(lambda f: handle.cancel() if f.cancelled() else None)
        return token

    def _end_progress(self, token: str | None, message: str) -> None:
        if token is None:
            return
        self.server.work_done_progress.end(token, types.WorkDoneProgressEnd(message=message))
        self.server.work_done_progress.tokens.pop(token, None)

    def _refresh(self, uri: str) -> None:
        engine = self.server.diagnostics_engine
        if engine is not None:
            engine.republish(uri)
        workspace = self.server.client_capabilities.workspace
        if workspace and workspace.code_lens and workspace.code_lens.refresh_support:
            self.server.workspace_code_lens_refresh(None)
        if workspace and workspace.inlay_hint and workspace.inlay_hint.refresh_support:
            self.server.workspace_inlay_hint_refresh(None)


def register(server: HolodeckServer) -> Runner:
    runner = Runner(server, InlineResults(server))
    engine = server.diagnostics_engine
    assert engine is not None, "register diagnostics before the run commands"
    engine.contributors.append(runner.results.contribute)
    engine.check_listeners.append(runner.checked)

    @server.feature(types.TEXT_DOCUMENT_CODE_LENS, types.CodeLensOptions(resolve_provider=False))
    async def code_lens(params: types.CodeLensParams) -> list[types.CodeLens]:
        try:
            return await runner.code_lenses(params.text_document.uri)
        except Exception:  # never take the server down over lenses
            log.exception("codeLens failed")
            return []

    @server.feature(types.TEXT_DOCUMENT_INLAY_HINT, types.InlayHintOptions(resolve_provider=False))
    async def inlay_hint(params: types.InlayHintParams) -> list[types.InlayHint]:
        try:
            return await runner.inlay_hints(params.text_document.uri)
        except Exception:
            log.exception("inlayHint failed")
            return []

    @server.command(RUN_ALL)
    async def run_all(*arguments: Any) -> Any:
        return await runner.execute(list(arguments), case_wanted=False, turn_wanted=False)

    @server.command(RUN_CASE)
    async def run_case(*arguments: Any) -> Any:
        return await runner.execute(list(arguments), case_wanted=True, turn_wanted=False)

    @server.command(REGRADE_CASE)
    async def regrade_case(*arguments: Any) -> Any:
        return await runner.execute(
            list(arguments), case_wanted=True, turn_wanted=False, regrade=True
        )

    @server.command(RUN_TURN)
    async def run_turn(*arguments: Any) -> Any:
        return await runner.execute(list(arguments), case_wanted=True, turn_wanted=True)

    @server.command(CANCEL_RUN)
    def cancel_run(*arguments: Any) -> Any:
        return runner.cancel(list(arguments))

    @server.command(LAST_REPORT)
    def last_run_report(*arguments: Any) -> Any:
        return runner.last_report(list(arguments))

    return runner
