"""The one way to run a suite — for `holodeck-lsp run` and for the editor's run commands.

Given inputs already resolved by the caller (a loaded `Agent`, its path, what to run, where
the answers come from), a session plans the cases, builds the backend (a live one with the
`holodeck.backends` overrides applied, a cassette replay, or a given transcript to re-grade),
runs `run_suite`, closes the backend — and masks every secret in whatever leaves the run:

* the report and the recorded cassette it returns,
* each turn and case result handed to the progress sink (the editor sends them to the client),
* the messages of the errors it raises (a backend's init error may quote an API key),
* the process's log records (see `secrets.mask_logs`).

Each model's backend and judges are a lane (runner/session_lanes.py). A run's lifecycle around
the session — the journal, storing, `--last-failed` — is runner/lifecycle/'s; front ends do
the rest: the CLI parses arguments, writes files, maps `RunCannotStart` to exit status 3 and
handles Ctrl-C; the server reads its settings and shows the message.

    session = RunSession.open(RunRequest(agent, path, answers=Replay(cassette)))  # blocking
    outcome = await session.run(progress, cancel)   # closes the backend
"""

from __future__ import annotations

import asyncio
import dataclasses
import logging
import os
from collections.abc import Mapping

from holodeck_lsp.checker.global_config import load_global_providers
from holodeck_lsp.engine.turn_grading import GradingOptions
from holodeck_lsp.runner.cassette import Cassette, CassetteFormatError, RecordingBackend
from holodeck_lsp.runner.execution.early_stop import EarlyStop, StopReason
from holodeck_lsp.runner.execution.events import ProgressSink
from holodeck_lsp.runner.execution.executor import RunOptions, run_lanes
from holodeck_lsp.runner.execution.simulation.recording import add_simulations, recorded_users
from holodeck_lsp.runner.execution.work_plan import WorkPlan
from holodeck_lsp.runner.models.model_matrix import missing_extra
from holodeck_lsp.runner.models.run_models import combination_refusal
from holodeck_lsp.runner.run_budget.session_budget import (
    SessionBudget,
    budget_refusal,
    live_budget_refusal,
)
from holodeck_lsp.runner.run_request import (
    Answers,
    Live,
    Replay,
    RunCannotStart,
    RunFailed,
    RunOutcome,
    RunRequest,
    Transcript,
)
from holodeck_lsp.runner.secrets import Redactor, collect_secrets, mask_logs
from holodeck_lsp.runner.selection import PlannedCase, SelectionError, plan_cases
from holodeck_lsp.runner.session_lanes import (
    OpenLane,
    add_judgements,
    close_quietly,
    open_lane,
    unreachable_model,
)
from holodeck_lsp.runner.session_progress import (
    FailFast,
    Journaling,
    MaskedProgress,
    OneCaseAtATime,
)
from holodeck_lsp.runner.tracing import session as tracing
from holodeck_lsp.schema.results import TestReport

_log = logging.getLogger(__name__)


class RunSession:
    """One run: open it (plans, builds the backend; may block for seconds importing an SDK
    and the agent's tools, so the server calls it in a thread), then `run` it once."""

    def __init__(
        self,
        request: RunRequest,
        lanes: list[OpenLane],
        planned: list[PlannedCase],
        redactor: Redactor,
        environment: dict[str, str],
    ) -> None:
        self.request = request
        self._lanes = lanes
        first = lanes[0]
        #: Where the judged metrics' verdicts come from (see runner/judges/pool.py); with a
        #: matrix, the first model's (each model has its own).
        self.judges = first.judges
        #: The agent as run (overrides applied); with a matrix, as the first model runs it.
        self.agent = first.lane.agent
        self.planned = planned
        self.backend = first.lane.backend
        self.redactor = redactor
        self._environment = environment
        self._closed = False
        #: The run's trace (runner/tracing/), None when it is not traced.
        self.tracing: tracing.RunTracing | None = None
        #: `--replay-user`'s recording (docs/simulated-users.md).
        self.replay_user: Cassette | None = None

    @classmethod
    def open(cls, request: RunRequest) -> RunSession:
        """Raises `RunCannotStart`. Masks the run's secrets in the process's logs from now."""
        env = os.environ if request.env is None else request.env
        redactor = redactor_for(request)
        mask_logs(redactor)
        agent = request.agent
        try:
            planned = (
                list(request.planned)
                if request.planned is not None
                else plan_cases(agent, request.selection)
            )
        except SelectionError as error:
            raise RunCannotStart(redactor.text(str(error))) from None
        if not planned:
            raise RunCannotStart(f"{request.agent_path.name} has no test cases to run")
        environment = {"mode": _mode(request.answers)}
        run = {"mode": environment["mode"], "repeat": request.repeat, "cases": len(planned)}
        models = [ref.label for ref in request.models]
        traced = tracing.open_tracing(agent, request.trace, env, redactor, run, models)
        answers = request.answers
        refusal = combination_refusal(
            models=len(request.models),
            repeat=request.repeat,
            replaying=not isinstance(answers, Live),
            recording=isinstance(answers, Live) and answers.record,
        )
        if refusal is not None:
            raise RunCannotStart(refusal)
        for ref in request.models if isinstance(request.answers, Live) else ():
            # Every model's SDK before any backend starts: a missing extra is said at once.
            missing = missing_extra(ref.provider)
            if missing is not None:
                raise RunCannotStart(f"--model {ref.label}: {missing}")
        refusal = live_budget_refusal(request)
        if refusal is not None:
            raise RunCannotStart(refusal)
        lanes: list[OpenLane] = []
        try:
            for model in request.models or (None,):
                lanes.append(open_lane(request, model, planned, env, redactor, environment))
        except BaseException:
            for opened in lanes:
                close_quietly(opened)
            raise
        environment["judges"] = lanes[0].judges.mode.value
        replay_user = _replay_user(answers, redactor, lanes)
        refusal = budget_refusal(request, [opened.label for opened in lanes])
        if refusal is not None:
            for opened in lanes:
                close_quietly(opened)
            raise RunCannotStart(refusal)
        session = cls(request, lanes, planned, redactor, environment)
        session.tracing = traced
        session.replay_user = replay_user
        return session

    @property
    def notes(self) -> list[str]:
        """What the answers say before the run, for the front end (a replayed cassette's
        cases no test case matches), masked."""
        found = (
            note for opened in self._lanes for note in getattr(opened.lane.backend, "notes", ())
        )
        return [self.redactor.text(note) for note in found]

    @property
    def work(self) -> WorkPlan:
        """The run's case sessions: the planned cases on every model, every repeat."""
        labels = [opened.label for opened in self._lanes]
        return WorkPlan.of(self.planned, labels, self.request.repeat)

    @property
    def mode(self) -> str:
        return self._environment["mode"]

    async def run(
        self,
        progress: ProgressSink | None = None,
        cancel: asyncio.Event | None = None,
        early_stop: EarlyStop | None = None,
    ) -> RunOutcome:
        """Run the planned cases; `progress` sees masked results. Raises `RunFailed`.

        `early_stop` (made from `cancel` when not given) is how anything stops the run early
        (runner/execution/early_stop.py); the outcome says why it stopped, if it did."""
        request = self.request
        options = self._options()
        sink: ProgressSink | None = (
            MaskedProgress(progress, self.redactor) if progress is not None else None
        )
        if sink is not None and options.parallel == 1:
            sink = OneCaseAtATime(sink)
        # The meter prices each result before the caller's sinks see it (runner/run_budget/).
        budget = SessionBudget.start(request, sink, self._lanes[0].label, self.work.sessions)
        sink = budget.meter
        options = budget.options(options)
        cancel = early_stop.cancel if early_stop is not None else cancel or asyncio.Event()
        early_stop = early_stop if early_stop is not None else EarlyStop(cancel)
        stopper: FailFast | None = None
        if request.fail_fast:
            sink = stopper = FailFast(sink, cancel)
        if request.journal is not None:
            sink = Journaling(sink, request.journal, cancel, self.redactor)
        sink = tracing.traced_progress(self.tracing, sink)
        report = None
        try:
            with tracing.tracing_active(self.tracing):
                report = await run_lanes(
                    [opened.lane for opened in self._lanes],
                    request.agent_path.parent,
                    repeat=request.repeat,
                    selection=request.selection,
                    planned=self.planned,
                    options=options,
                    progress=sink,
                    cancel=cancel,
                    finished=request.finished,
                    early_stop=early_stop,
                )
        except Exception as error:
            raise RunFailed(self.redactor.text(f"{type(error).__name__}: {error}")) from error
        finally:
            tracing.close_tracing(self.tracing, report)
            await self.aclose()
        return self._outcome(report, early_stop, stopper, budget)

    def _options(self) -> RunOptions:
        """How the executor runs this session's cases: the agent's parallelism, the grader
        time limit, the environment, `--replay-user`'s recording."""
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
        return dataclasses.replace(options, replay_user=self.replay_user)

    def _outcome(
        self,
        report: TestReport,
        early_stop: EarlyStop,
        stopper: FailFast | None,
        budget: SessionBudget,
    ) -> RunOutcome:
        """What the run returns, every text in it masked: the report, the recording (with the
        judges' verdicts and the simulated users' turns), why it stopped early, if it did."""
        recording = None
        if isinstance(self.backend, RecordingBackend):
            cassette = self.backend.cassette()
            add_judgements(cassette, self.judges)
            add_simulations(cassette, report.results, self.judges.made)
            recording = self.redactor.model(cassette)
        unreachable = unreachable_model(self._lanes, self.redactor)
        stopped = early_stop.stopped
        if stopper is not None and stopper.stopped_after is not None:
            stopped = StopReason.FAIL_FAST
        return RunOutcome(
            stopped=stopped,
            stop_detail=self.redactor.text(early_stop.detail),
            report=self.redactor.report(budget.report(report)),
            recording=recording,
            unreachable=unreachable,
            stopped_after=(
                self.redactor.text(stopper.stopped_after)
                if stopper is not None and stopper.stopped_after is not None
                else None
            ),
            stop_reason=budget.reason,
        )

    async def aclose(self) -> None:
        """Close the backends (once); a failing cleanup is only logged — the report is done."""
        if self._closed:
            return
        self._closed = True
        for opened in self._lanes:
            await opened.aclose()


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
    found = collect_secrets(agent, env, files, texts)
    if request.models:
        # A switched provider takes its key from config.yaml's `providers:` entry.
        providers = load_global_providers(path.parent, env=env).providers
        found += [str(entry["api_key"]) for entry in providers.values() if entry.get("api_key")]
    return found


def _replay_user(answers: Answers, redactor: Redactor, lanes: list[OpenLane]) -> Cassette | None:
    """`--replay-user`'s recording, read before the run starts (RunCannotStart otherwise)."""
    path = answers.replay_user if isinstance(answers, Live) else None
    if path is None:
        return None
    try:
        return recorded_users(path)
    except (CassetteFormatError, ValueError) as error:
        for opened in lanes:
            close_quietly(opened)
        raise RunCannotStart(redactor.text(str(error))) from None


def _mode(answers: Answers) -> str:
    if isinstance(answers, Live):
        return "record" if answers.record else "live"
    return "replay" if isinstance(answers, Replay) else "regrade"


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
