"""Run a suite (or part of it) against a backend and produce its `TestReport`.

Up to `parallel` cases run at once (an `asyncio.Semaphore`), each in its own session; turns
of one case are always sequential (see `case_runner`). The longest cases take the slots first
(`start_order`); results are always in file order, whatever order the cases ran in.

Cancellation — the `cancel` event set, or the task running `run_suite` cancelled — stops new
sends, abandons the ones in flight, closes every session and still returns a report: turns
that were not answered are skipped with the reason `cancelled`, so the totals add up.
"""

from __future__ import annotations

import asyncio
import os
import platform
import time
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from holodeck_lsp.engine.turn_grading import GradingOptions
from holodeck_lsp.runner.agent_code.grader_loading import (
    default_grader_timeout,
    grader_specs,
    load_graders,
)
from holodeck_lsp.runner.backends.base import AgentBackend
from holodeck_lsp.runner.cassette.format import Cassette
from holodeck_lsp.runner.execution.case_sessions import CANCELLED
from holodeck_lsp.runner.execution.early_stop import EarlyStop, StopReason
from holodeck_lsp.runner.execution.events import CaseKey, CaseRef, ProgressSink
from holodeck_lsp.runner.execution.lane_report import (
    lanes_report,
    not_started,
    now_stamp,
    ordered_results,
)
from holodeck_lsp.runner.execution.run_context import RunContext
from holodeck_lsp.runner.execution.simulation.case_runs import case_run_for
from holodeck_lsp.runner.execution.start_order import start_order
from holodeck_lsp.runner.execution.work_plan import WorkPlan
from holodeck_lsp.runner.judges.pool import JudgePool
from holodeck_lsp.runner.selection import PlannedCase, Selection, plan_cases
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.llm import model_label
from holodeck_lsp.schema.results import TestReport, TestResult
from holodeck_lsp.schema.tools.mcp import MCPTool

#: After a cancel (Ctrl-C, --fail-fast), the seconds the cases in flight get to finish — an
#: answered turn's judges and graders — before they are abandoned and reported not run: the
#: bound on how long the first Ctrl-C waits (docs/running.md, "Cancellation").
IN_FLIGHT_GRACE = 5.0

PARALLEL_ENV = "HOLODECK_PARALLEL_TEST_CASES"

#: In a matrix, `environment[WALL_TIME_KEY + model]`: milliseconds from the model's first
#: session start to its last session's end (the models share the run's `parallel` slots).
WALL_TIME_KEY = "wall_time_ms:"


@dataclass(frozen=True, slots=True)
class RunOptions:
    #: Cases run at once (see `resolve_parallelism`).
    parallel: int = 1
    #: Seconds one send (one turn) may take; None waits for ever.
    llm_timeout: float | None = None
    #: Default: the grader time limit from HOLODECK_GRADER_TIMEOUT (else 30 s).
    grading: GradingOptions = field(default_factory=lambda: _grading_from(os.environ))
    #: The agent file, for the report's `agent_config_path` (default: agent_dir/agent.yaml).
    config_path: Path | None = None
    #: Extra entries for the report's `environment`.
    environment: Mapping[str, str] = field(default_factory=dict)
    #: Asked as each case takes its slot: a reason not to start it (a `--max-cost` budget,
    #: runner/run_budget/), else None. A case not started is left out of the report (the run
    #: is stopped early, and resumable), the cases in flight finish.
    may_start: Callable[[CaseRef], str | None] | None = None
    #: `--replay-user`: the recording whose simulated users' messages drive the live agent.
    replay_user: Cassette | None = None

    @classmethod
    def for_agent(
        cls,
        agent: Agent,
        *,
        parallel: int | None = None,
        env: Mapping[str, str] | None = None,
        grading: GradingOptions | None = None,
        config_path: Path | None = None,
        environment: Mapping[str, str] | None = None,
    ) -> RunOptions:
        """Options resolved from the CLI value, the agent's `execution:` and the environment."""
        timeout = agent.execution.llm_timeout if agent.execution else None
        return cls(
            parallel=resolve_parallelism(parallel, agent, os.environ if env is None else env),
            llm_timeout=float(timeout) if timeout else None,
            grading=grading or _grading_from(os.environ if env is None else env),
            config_path=config_path,
            environment=dict(environment or {}),
        )


def _grading_from(env: Mapping[str, str]) -> GradingOptions:
    return GradingOptions(grader_timeout=default_grader_timeout(env))


def resolve_parallelism(cli: int | None, agent: Agent, env: Mapping[str, str]) -> int:
    """CLI > YAML `execution.parallel_test_cases` > $HOLODECK_PARALLEL_TEST_CASES > 1
    (docs/running.md#parallelism). A non-positive or non-numeric environment value is ignored."""
    if cli is not None:
        return max(1, cli)
    configured = agent.execution.parallel_test_cases if agent.execution else None
    if configured is not None:
        return configured
    raw = env.get(PARALLEL_ENV, "").strip()
    if raw.isdigit() and int(raw) >= 1:
        return int(raw)
    return 1


@dataclass(frozen=True, slots=True)
class Lane:
    """One model of a run: the agent as that model runs it, its backend and its judges. A
    plain run has one lane; a model matrix one per `--model`."""

    agent: Agent
    backend: AgentBackend
    judges: JudgePool | None = None
    #: `provider:name`; default: the agent's own model.
    model: str | None = None

    @property
    def label(self) -> str:
        if self.model is not None:
            return self.model
        return model_label(self.agent.model.provider, self.agent.model.name)


async def run_suite(
    agent: Agent,
    agent_dir: Path,
    backend: AgentBackend,
    *,
    selection: Selection | None = None,
    options: RunOptions | None = None,
    progress: ProgressSink | None = None,
    cancel: asyncio.Event | None = None,
    judges: JudgePool | None = None,
) -> TestReport:
    """Run the selected cases and return the report (results in file order).

    Raises `SelectionError` (before anything is sent) when the selection names no case or
    turn. Everything that goes wrong inside a case fails that case only.
    """
    return await run_lanes(
        [Lane(agent, backend, judges)],
        agent_dir,
        selection=selection,
        options=options,
        progress=progress,
        cancel=cancel,
    )


async def run_lanes(
    lanes: Sequence[Lane],
    agent_dir: Path,
    *,
    repeat: int = 1,
    selection: Selection | None = None,
    planned: Sequence[PlannedCase] | None = None,
    options: RunOptions | None = None,
    progress: ProgressSink | None = None,
    cancel: asyncio.Event | None = None,
    finished: Mapping[CaseKey, TestResult] | None = None,
    early_stop: EarlyStop | None = None,
) -> TestReport:
    """Every selected case once per lane (model) and `repeat` times, each an independent
    session, all in one pool of `parallel` slots; results ordered by model, then repeat,
    then file order. The lanes' agents differ in `model:` only (same cases, same graders).

    `finished`: sessions a resumed run already has (by `CaseRef.key`): not run again, their
    results put in their place, so the report is the one an uninterrupted run makes.
    `early_stop` draining: the cases not started yet are reported skipped, never run.

    Three steps: plan (the work plan, one context per lane), schedule (the sessions left, the
    longest first, in the pool), assemble (the report, in report order)."""
    if not lanes:
        raise ValueError("run_lanes needs at least one lane")
    options = options or RunOptions()
    # `planned`: the caller planned this selection already (the session does, to refuse an
    # empty one before a backend starts) — planning is not repeated.
    if planned is None:
        planned = plan_cases(lanes[0].agent, selection)
    run = _plan(lanes, agent_dir, WorkPlan.of(planned, [lane.label for lane in lanes], repeat))
    run.prepare(options, progress, cancel, finished or {})
    try:
        tasks = await _schedule(run, options, early_stop)
    finally:
        run.cancelled.cancel()
    return _assemble(run, tasks, options)


@dataclass(slots=True)
class _LaneRun:
    """A run of lanes as planned: the work, the run's shared state, each lane's context."""

    lanes: Sequence[Lane]
    agent_dir: Path
    work: WorkPlan
    started: str
    cancel: asyncio.Event = field(default_factory=asyncio.Event)
    cancelled: asyncio.Future[object] = field(init=False)
    contexts: list[RunContext] = field(default_factory=list)
    finished: Mapping[CaseKey, TestResult] = field(default_factory=dict)
    #: Per lane: when its first session started and its last one finished (wall time).
    spans: list[list[float]] = field(default_factory=list)

    def prepare(
        self,
        options: RunOptions,
        progress: ProgressSink | None,
        cancel: asyncio.Event | None,
        finished: Mapping[CaseKey, TestResult],
    ) -> None:
        """The graders loaded once, a context per lane, the cancel switch watched."""
        first = self.lanes[0].agent
        planned = list(self.work.planned)
        graders = load_graders(grader_specs(first, planned), self.agent_dir)
        self.cancel = cancel if cancel is not None else self.cancel
        self.cancelled = asyncio.ensure_future(self.cancel.wait())
        self.finished = finished
        self.spans = [[] for _ in self.lanes]
        retrieval = frozenset(
            tool.name
            for tool in first.tools or []
            if isinstance(tool, MCPTool) and tool.is_retrieval
        )
        self.contexts = [
            RunContext(
                agent=lane.agent,
                agent_dir=self.agent_dir,
                backend=lane.backend,
                graders=graders,
                grading=options.grading,
                llm_timeout=options.llm_timeout,
                cancel=self.cancel,
                cancelled=self.cancelled,
                progress=progress,
                judges=lane.judges,
                retrieval_tools=retrieval,
                model=lane.label,
            )
            for lane in self.lanes
        ]


def _plan(lanes: Sequence[Lane], agent_dir: Path, work: WorkPlan) -> _LaneRun:
    return _LaneRun(lanes, agent_dir, work, now_stamp())


async def _schedule(
    run: _LaneRun, options: RunOptions, early_stop: EarlyStop | None
) -> dict[CaseKey, asyncio.Task[TestResult | None]]:
    """Start every session left, the longest first, `parallel` at a time; wait for them (or
    for the cancel, then wind down). The tasks by session key."""
    gate = asyncio.Semaphore(max(1, options.parallel))
    cancel, finished = run.cancel, run.finished
    items = run.work.items()
    # Only what is left is run; a resumed run's cases keep their numbers in the whole run.
    left = [sequence for sequence, item in enumerate(items) if item.key not in finished]

    async def one(
        context: RunContext, item: PlannedCase, ref: CaseRef, lane: int
    ) -> TestResult | None:
        case_run = case_run_for(context, item, ref, options.replay_user)
        async with gate:
            if options.may_start is not None:
                refusal = options.may_start(ref)  # a budget (runner/run_budget/)
                if refusal is not None:
                    # Left out of the report (it says why it stopped) and not journaled, so
                    # `run --resume` runs it; the run is stopped: no other case starts.
                    if early_stop is not None:
                        early_stop.stop(StopReason.BUDGET, refusal, finish_in_flight=True)
                    return None
            if early_stop is not None and early_stop.stopping and not cancel.is_set():
                return not_started(item, early_stop.detail or "the run stopped early")
            run.spans[lane].append(time.perf_counter())
            await case_run.converse()
        # Outside the gate: the next case is sent while this one's judges answer.
        try:
            return await case_run.finish()
        finally:
            run.spans[lane].append(time.perf_counter())

    tasks: dict[CaseKey, asyncio.Task[TestResult | None]] = {}
    # Tasks reach the (FIFO) gate in the order they are created: the longest cases first
    # (start_order.py); `sequence` keeps the file-order number progress shows.
    lengths = [items[sequence].case.sent_turns for sequence in left]
    for order in start_order(lengths, options.parallel):
        sequence = left[order]
        work_item = items[sequence]
        item = work_item.case
        ref = CaseRef(
            # A resumed run numbers each case by its place in the run ([31/371]), not among
            # those left: the numbers match the first part's and the file's.
            position=sequence + 1 if finished else order + 1,
            total=len(items) if finished else len(left),
            index=item.index,
            name=item.case.name,
            turns=item.most_turns,
            simulated=item.simulated,
            model=work_item.key[1],
            repeat=work_item.key[2],
        )
        context = run.contexts[work_item.lane]
        tasks[work_item.key] = asyncio.create_task(one(context, item, ref, work_item.lane))
    await _wait(tasks, run)
    return tasks


async def _wait(tasks: Mapping[CaseKey, asyncio.Task[TestResult | None]], run: _LaneRun) -> None:
    """Until every case ended or the run was cancelled (then wind down)."""
    try:
        if tasks:
            # `wait`, not `gather`: cancelling us must not cancel the cases, which wind down
            # on their own once `cancel` is set and close their sessions.
            everything = asyncio.ensure_future(asyncio.wait(tasks.values()))
            await asyncio.wait((everything, run.cancelled), return_when=asyncio.FIRST_COMPLETED)
            everything.cancel()
            await wind_down(tasks.values())
    except asyncio.CancelledError:
        run.cancel.set()
        current = asyncio.current_task()
        if current is not None:
            current.uncancel()  # we return the partial report instead of re-raising
        await wind_down(tasks.values())


def _assemble(
    run: _LaneRun, tasks: Mapping[CaseKey, asyncio.Task[TestResult | None]], options: RunOptions
) -> TestReport:
    """The report: the results in report order, the run's environment (lane_report.py)."""
    lanes = run.lanes
    environment = {
        "python": platform.python_version(),
        "platform": platform.system().lower(),
        "backend": ", ".join(dict.fromkeys(type(lane.backend).__name__ for lane in lanes)),
        "parallel_test_cases": str(max(1, options.parallel)),
        **options.environment,
    }
    if run.cancel.is_set():
        environment["cancelled"] = "true"
    models = [lane.label for lane in lanes]
    if run.work.matrix:
        for model, span in zip(models, run.spans, strict=True):
            if span:
                environment[f"{WALL_TIME_KEY}{model}"] = str(round((max(span) - min(span)) * 1000))
    return lanes_report(
        agent_name=lanes[0].agent.name,
        config_path=str(options.config_path or run.agent_dir / "agent.yaml"),
        started=run.started,
        results=ordered_results(run.work, models, run.finished, tasks),
        environment=environment,
        models=models,
        repeat=run.work.repeat,
    )


async def wind_down(tasks: Iterable[asyncio.Task[TestResult | None]]) -> None:
    """Wait for the cases; once the run is cancelled, for IN_FLIGHT_GRACE seconds at most
    (an answered turn's judges and graders finishing), then abandon the rest: each is
    cancelled and reported not run (docs/running.md, "Cancellation")."""
    pending = [task for task in tasks if not task.done()]
    if not pending:
        return
    _, late = await asyncio.wait(pending, timeout=IN_FLIGHT_GRACE)
    for task in late:
        task.cancel(CANCELLED)
    if late:
        await asyncio.wait(late, timeout=1.0)  # their sessions close; a stuck one is left
