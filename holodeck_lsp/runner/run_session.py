"""The one way to run a suite — for `holodeck-lsp run` and for the editor's run commands.

Given inputs already resolved by the caller (a loaded `Agent`, its path, what to run, where
the answers come from), a session plans the cases, builds the backend (a live one with the
`holodeck.backends` overrides applied, a cassette replay, or a given transcript to re-grade),
runs `run_suite`, closes the backend — and masks every secret in whatever leaves the run:

* the report and the recorded cassette it returns,
* each turn and case result handed to the progress sink (the editor sends them to the client),
* the messages of the errors it raises (a backend's init error may quote an API key),
* the process's log records (see `secrets.mask_logs`).

Callers do the rest: the CLI parses arguments, writes files, maps `RunCannotStart` to exit
status 3 and handles Ctrl-C; the server reads its settings and shows the message.

    session = RunSession.open(RunRequest(agent, path, answers=Replay(cassette)))  # blocking
    outcome = await session.run(progress, cancel)   # closes the backend
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holodeck_lsp.engine.turn_grading import GradingOptions
from holodeck_lsp.runner.backend import AgentBackend, BackendInitError
from holodeck_lsp.runner.backend_overrides import OverrideError, with_backend_overrides
from holodeck_lsp.runner.cassette import (
    Cassette,
    CassetteFormatError,
    RecordingBackend,
    ReplayBackend,
    load_cassette,
)
from holodeck_lsp.runner.executor import RunOptions, run_suite
from holodeck_lsp.runner.progress import CaseRef, ProgressSink
from holodeck_lsp.runner.secrets import Redactor, collect_secrets, mask_logs
from holodeck_lsp.runner.selection import PlannedCase, Selection, SelectionError, plan_cases
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult

_log = logging.getLogger(__name__)


# -- where the answers come from --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Live:
    """Send the turns to the agent's backend (built from `model:`, overrides applied);
    `record`: also keep what it answered, as a cassette."""

    record: bool = False


@dataclass(frozen=True, slots=True)
class Replay:
    """Answer from the cassette file at `path` (no backend, no network)."""

    path: Path


@dataclass(frozen=True, slots=True)
class Transcript:
    """Answer from answers already at hand (re-grading: nothing is sent to the agent)."""

    cassette: Cassette


Answers = Live | Replay | Transcript


@dataclass(frozen=True, slots=True)
class RunRequest:
    agent: Agent
    #: The agent file (its folder holds the tools, graders and files the cases use).
    agent_path: Path
    answers: Answers = Live()
    selection: Selection = field(default_factory=Selection)
    #: `holodeck.backends`-style overrides of `model:` for a live run (see backend_overrides).
    backend_overrides: Mapping[str, Any] = field(default_factory=dict)
    #: Cases at once; None: `execution.parallel_test_cases`, else the environment, else 1.
    parallel: int | None = None
    #: Seconds a code grader may run; None: $HOLODECK_GRADER_TIMEOUT, else 30.
    grader_timeout: float | None = None
    #: The agent file's text as it was loaded, when that is not the file on disk (an editor
    #: buffer): scanned for `${VAR}` secrets instead of the file.
    agent_text: str | None = None
    #: The environment secrets are looked for in (default: this process's).
    env: Mapping[str, str] | None = None


class RunCannotStart(Exception):
    """Nothing was run: no case to run, no usable backend, an unreadable cassette, a bad
    override. The message says why (secrets masked) and is meant to be shown as is."""


class RunFailed(Exception):
    """The run itself crashed (a bug: everything a backend or grader does fails its case
    only). The message is the error, `Type: message`, secrets masked."""


@dataclass(frozen=True, slots=True)
class RunOutcome:
    #: The report, secrets masked.
    report: TestReport
    #: With `Live(record=True)`: what the backend answered, secrets masked.
    recording: Cassette | None = None


class RunSession:
    """One run: open it (plans, builds the backend; may block for seconds importing an SDK
    and the agent's tools, so the server calls it in a thread), then `run` it once."""

    def __init__(
        self,
        request: RunRequest,
        agent: Agent,
        planned: list[PlannedCase],
        backend: AgentBackend,
        redactor: Redactor,
        environment: dict[str, str],
    ) -> None:
        self.request = request
        #: The agent as run (overrides applied).
        self.agent = agent
        self.planned = planned
        self.backend = backend
        self.redactor = redactor
        self._environment = environment
        self._closed = False

    @classmethod
    def open(cls, request: RunRequest) -> RunSession:
        """Raises `RunCannotStart`. Masks the run's secrets in the process's logs from now."""
        redactor = redactor_for(request)
        mask_logs(redactor)
        agent = request.agent
        try:
            planned = plan_cases(agent, request.selection)
        except SelectionError as error:
            raise RunCannotStart(redactor.text(str(error))) from None
        if not planned:
            raise RunCannotStart(f"{request.agent_path.name} has no test cases to run")
        environment = {"mode": _mode(request.answers)}
        answers = request.answers
        try:
            if isinstance(answers, Live):
                agent, overridden = with_backend_overrides(agent, request.backend_overrides)
                if overridden:
                    environment["backend_overrides"] = ", ".join(overridden)
                backend = _live_backend(agent, request.agent_path.parent, answers.record)
            elif isinstance(answers, Replay):
                backend = ReplayBackend(load_cassette(answers.path), agent)
            else:
                backend = ReplayBackend(answers.cassette, agent)
        except (OverrideError, CassetteFormatError, BackendInitError) as error:
            raise RunCannotStart(redactor.text(str(error))) from None
        except Exception as error:  # a backend constructor bug: still "cannot run", with the cause
            message = f"the backend could not start: {type(error).__name__}: {error}"
            raise RunCannotStart(redactor.text(message)) from None
        return cls(request, agent, planned, backend, redactor, environment)

    @property
    def mode(self) -> str:
        return self._environment["mode"]

    async def run(
        self, progress: ProgressSink | None = None, cancel: asyncio.Event | None = None
    ) -> RunOutcome:
        """Run the planned cases; `progress` sees masked results. Raises `RunFailed`."""
        request = self.request
        grading = (
            GradingOptions(grader_timeout=request.grader_timeout)
            if request.grader_timeout is not None
            else None
        )
        options = RunOptions.for_agent(
            self.agent,
            parallel=request.parallel,
            env=request.env,
            grading=grading,
            config_path=request.agent_path,
            environment=self._environment,
        )
        sink = _MaskedProgress(progress, self.redactor) if progress is not None else None
        try:
            report = await run_suite(
                self.agent,
                request.agent_path.parent,
                self.backend,
                selection=request.selection,
                options=options,
                progress=sink,
                cancel=cancel,
            )
        except Exception as error:
            raise RunFailed(self.redactor.text(f"{type(error).__name__}: {error}")) from error
        finally:
            await self.aclose()
        recording = None
        if isinstance(self.backend, RecordingBackend):
            recording = self.redactor.model(self.backend.cassette())
        return RunOutcome(report=self.redactor.report(report), recording=recording)

    async def aclose(self) -> None:
        """Close the backend (once); a failing cleanup is only logged — the report is done."""
        if self._closed:
            return
        self._closed = True
        try:
            await self.backend.aclose()
        except Exception:
            _log.warning("closing the backend failed", exc_info=True)


def redactor_for(request: RunRequest) -> Redactor:
    """What a session opened for `request` masks with — for text shown before it is open (the
    editor's progress title while the backend starts)."""
    env = os.environ if request.env is None else request.env
    return Redactor(_secrets(request, env))


def _secrets(request: RunRequest, env: Mapping[str, str]) -> list[str]:
    agent, path = request.agent, request.agent_path
    files = [] if request.agent_text is not None else [path]
    if agent.test_cases_file:
        files.append(path.parent / agent.test_cases_file)
    texts = [request.agent_text] if request.agent_text is not None else []
    return collect_secrets(agent, env, files, texts)


def _mode(answers: Answers) -> str:
    if isinstance(answers, Live):
        return "record" if answers.record else "live"
    return "replay" if isinstance(answers, Replay) else "regrade"


def _live_backend(agent: Agent, agent_dir: Path, record: bool) -> AgentBackend:
    # Only now: importing the backends package (and an SDK) is what a live run pays for.
    from holodeck_lsp.runner.backends import create_backend

    backend: AgentBackend = create_backend(agent, agent_dir)
    return RecordingBackend(backend, agent.name) if record else backend


class _MaskedProgress:
    """The caller's progress sink, given results with secrets masked (the editor forwards
    them to the client as they are)."""

    def __init__(self, inner: ProgressSink, redactor: Redactor) -> None:
        self._inner = inner
        self._redactor = redactor

    def _ref(self, case: CaseRef) -> CaseRef:
        if case.name is None or not self._redactor:
            return case
        return dataclasses.replace(case, name=self._redactor.text(case.name))

    def case_started(self, case: CaseRef) -> None:
        self._inner.case_started(self._ref(case))

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self._inner.turn_finished(self._ref(case), self._redactor.model(turn))

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self._inner.case_finished(self._ref(case), self._redactor.model(result))


__all__ = [
    "Answers",
    "Live",
    "Replay",
    "RunCannotStart",
    "RunFailed",
    "RunOutcome",
    "RunRequest",
    "RunSession",
    "Transcript",
]
