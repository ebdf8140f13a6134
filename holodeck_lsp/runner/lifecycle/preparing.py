"""Before anything starts: what the run runs. A resumed run takes its journal's cases, models,
repeats and answers; `--last-failed` the cases that failed last time; the cases are planned
once here (the session and the executor take them as planned); the models and repeats are
resolved, holodeck-lsp.yaml's limits and prices applied, and the answers chosen.

Nothing here prints: what a front end should tell the user comes back as `notes`."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from holodeck_lsp.runner.execution.work_plan import WorkPlan
from holodeck_lsp.runner.lifecycle.request import LifecycleRequest
from holodeck_lsp.runner.models.run_models import RunModels, RunModelsError, resolve_run_models
from holodeck_lsp.runner.project_limits import Prices, ProjectLimitsError, apply_project_limits
from holodeck_lsp.runner.run_history import last_failed
from holodeck_lsp.runner.run_history.resume import ResumePlan, ResumeRefused, plan_resume
from holodeck_lsp.runner.run_request import Answers, Live, Replay, Transcript
from holodeck_lsp.runner.selection import PlannedCase, Selection, SelectionError, plan_cases


class BadRunRequest(Exception):
    """The run cannot go as asked (a bad selection, model, resume or holodeck-lsp.yaml);
    the message leads with the cause and the fix. The CLI exits 2 on it."""


@dataclass(frozen=True, slots=True)
class PreparedRun:
    request: LifecycleRequest
    selection: Selection
    planned: tuple[PlannedCase, ...]
    matrix: RunModels
    answers: Answers
    #: holodeck-lsp.yaml's `prices:`.
    prices: Prices
    #: Cases at once (a resumed run's own, unless given again).
    parallel: int | None
    #: The stored run being finished (`--resume`), else None.
    resumed: ResumePlan | None = None
    #: What the front end should say before the run (which cases `--last-failed` chose).
    notes: tuple[str, ...] = field(default_factory=tuple)

    @property
    def work(self) -> WorkPlan:
        """The run's case sessions: the planned cases on every model, every repeat."""
        return WorkPlan.of(
            self.planned, [ref.label for ref in self.matrix.models], self.matrix.repeat
        )


def prepare_run(request: LifecycleRequest) -> PreparedRun:
    """Raises BadRunRequest. Applies holodeck-lsp.yaml's limits (the process's limiters)."""
    agent, path = request.agent, request.agent_path
    if not agent.test_cases:
        raise BadRunRequest(f"{path} has no test cases to run")
    resumed = _resume_plan(request)
    notes: list[str] = []
    # A resumed run runs what its journal says it runs: the same cases, models, repeats.
    selection = resumed.header.selection if resumed is not None else _selection(request, notes)
    try:
        planned = plan_cases(agent, selection)
    except SelectionError as error:
        raise BadRunRequest(str(error)) from None
    answers = _answers(request, resumed)
    try:
        matrix = _run_models(request, resumed, replaying=not isinstance(answers, Live))
        prices = apply_project_limits(path, request.retry_budget, request.max_tool_rounds)
    except (RunModelsError, ProjectLimitsError) as error:
        raise BadRunRequest(str(error)) from None
    parallel = request.parallel
    if resumed is not None and parallel is None:
        parallel = resumed.header.parallel
    return PreparedRun(
        request, selection, tuple(planned), matrix, answers, prices, parallel, resumed, tuple(notes)
    )


def _resume_plan(request: LifecycleRequest) -> ResumePlan | None:
    asked = request.resume
    if asked is None:
        return None
    try:
        return plan_resume(
            request.agent,
            request.agent_path,
            asked.ref,
            force=asked.force,
            retry_errored=asked.retry_errored,
        )
    except ResumeRefused as error:
        raise BadRunRequest(str(error)) from None


def _selection(request: LifecycleRequest, notes: list[str]) -> Selection:
    if request.case_index is not None:
        return Selection(case=request.case_index, turn=request.turn)
    cases = list(request.cases)
    if request.last_failed:
        last = last_failed.load(request.agent_path)
        if last is None:
            notes.append("no earlier run recorded: running every case")
        elif not last.failed:
            notes.append("no case failed last time: running every case")
        else:
            cases = list(last.failed)
            notes.append(f"running the {len(cases)} case(s) that failed last time")
    first = cases[0] if len(cases) == 1 else None
    return Selection(
        case=first,
        turn=request.turn,
        cases=tuple(cases) if first is None else (),
        keyword=request.keyword,
        shard=request.shard,
    )


def _answers(request: LifecycleRequest, resumed: ResumePlan | None) -> Answers:
    if request.transcript is not None:
        return Transcript(request.transcript)
    replay = request.replay
    if resumed is not None and resumed.header.replay_of is not None:
        replay = Path(resumed.header.replay_of)
    if replay is not None:
        return Replay(replay)
    return Live(record=request.record, replay_user=request.replay_user)


def _run_models(
    request: LifecycleRequest, resumed: ResumePlan | None, *, replaying: bool
) -> RunModels:
    repeat: int | None
    if resumed is not None:
        models, repeat = (resumed.header.models or None), resumed.header.repeat
    else:
        models = list(request.models) if request.models is not None else None
        repeat = request.repeat
    if models is None and not request.configured_models:
        return RunModels(repeat=1 if repeat is None else repeat)
    return resolve_run_models(
        models, repeat, request.agent_path.parent, replaying=replaying, recording=request.record
    )
