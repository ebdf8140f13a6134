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
from datetime import UTC, datetime
from pathlib import Path

from holodeck_lsp import __version__
from holodeck_lsp.engine.case_grading import turn_specs
from holodeck_lsp.engine.rollup import multi_turn_result, single_turn_result, summarize
from holodeck_lsp.engine.turn_grading import GradingOptions
from holodeck_lsp.runner.agent_code.grader_loading import (
    default_grader_timeout,
    grader_specs,
    load_graders,
)
from holodeck_lsp.runner.backends.base import AgentBackend
from holodeck_lsp.runner.execution.case_runner import CaseRun, RunContext
from holodeck_lsp.runner.execution.case_sessions import CANCELLED
from holodeck_lsp.runner.execution.early_stop import EarlyStop, StopReason
from holodeck_lsp.runner.execution.events import CaseKey, CaseRef, ProgressSink
from holodeck_lsp.runner.execution.start_order import start_order
from holodeck_lsp.runner.execution.work_plan import WorkPlan
from holodeck_lsp.runner.judges.pool import JudgePool
from holodeck_lsp.runner.selection import PlannedCase, Selection, plan_cases
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.llm import model_label
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult
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
    """
    if not lanes:
        raise ValueError("run_lanes needs at least one lane")
    options = options or RunOptions()
    first = lanes[0].agent
    # `planned`: the caller planned this selection already (the session does, to refuse an
    # empty one before a backend starts) — planning is not repeated.
    planned = list(planned) if planned is not None else plan_cases(first, selection)
    started = _now()
    graders = load_graders(grader_specs(first, planned), agent_dir)
    cancel = cancel if cancel is not None else asyncio.Event()
    cancelled = asyncio.ensure_future(cancel.wait())
    retrieval = frozenset(
        tool.name for tool in first.tools or [] if isinstance(tool, MCPTool) and tool.is_retrieval
    )
    contexts = [
        RunContext(
            agent=lane.agent,
            agent_dir=agent_dir,
            backend=lane.backend,
            graders=graders,
            grading=options.grading,
            llm_timeout=options.llm_timeout,
            cancel=cancel,
            cancelled=cancelled,
            progress=progress,
            judges=lane.judges,
            retrieval_tools=retrieval,
            model=lane.label,
        )
        for lane in lanes
    ]
    matrix = len(lanes) > 1
    gate = asyncio.Semaphore(max(1, options.parallel))
    work = WorkPlan.of(planned, [lane.label for lane in lanes], repeat)
    finished = finished or {}
    # Only what is left is run; a resumed run's cases keep their numbers in the whole run.
    items = work.items()
    left = [sequence for sequence, item in enumerate(items) if item.key not in finished]
    total = len(left)

    #: Per lane: when its first session started and its last one finished (wall time).
    spans: list[list[float]] = [[] for _ in lanes]

    async def one(
        context: RunContext, item: PlannedCase, ref: CaseRef, lane: int
    ) -> TestResult | None:
        case_run = CaseRun(context, item, ref)
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
                return _not_started(item, early_stop.detail or "the run stopped early")
            spans[lane].append(time.perf_counter())
            await case_run.converse()
        # Outside the gate: the next case is sent while this one's judges answer.
        try:
            return await case_run.finish()
        finally:
            spans[lane].append(time.perf_counter())

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
            total=len(items) if finished else total,
            index=item.index,
            name=item.case.name,
            turns=1 if item.graded_turn is not None else item.turn_count,
            model=work_item.key[1],
            repeat=work_item.key[2],
        )
        tasks[work_item.key] = asyncio.create_task(
            one(contexts[work_item.lane], item, ref, work_item.lane)
        )
    try:
        if tasks:
            # `wait`, not `gather`: cancelling us must not cancel the cases, which wind down
            # on their own once `cancel` is set and close their sessions.
            everything = asyncio.ensure_future(asyncio.wait(tasks.values()))
            await asyncio.wait((everything, cancelled), return_when=asyncio.FIRST_COMPLETED)
            everything.cancel()
            await wind_down(tasks.values())
    except asyncio.CancelledError:
        cancel.set()
        current = asyncio.current_task()
        if current is not None:
            current.uncancel()  # we return the partial report instead of re-raising
        await wind_down(tasks.values())
    finally:
        cancelled.cancel()
    results = [
        _stamped(result, lanes[item.lane].label, item.key[2])
        for item in work.in_report_order()
        if (
            result := (
                finished[item.key]
                if item.key in finished
                else _result_of(tasks[item.key], item.case)
            )
        )
        is not None  # a case a budget did not start
    ]
    environment = {
        "python": platform.python_version(),
        "platform": platform.system().lower(),
        "backend": ", ".join(dict.fromkeys(type(lane.backend).__name__ for lane in lanes)),
        "parallel_test_cases": str(max(1, options.parallel)),
        **options.environment,
    }
    if cancel.is_set():
        environment["cancelled"] = "true"
    models = [lane.label for lane in lanes]
    if matrix:
        for model, span in zip(models, spans, strict=True):
            if span:
                environment[f"{WALL_TIME_KEY}{model}"] = str(round((max(span) - min(span)) * 1000))
    return TestReport(
        agent_name=first.name,
        agent_config_path=str(options.config_path or agent_dir / "agent.yaml"),
        results=results,
        summary=summarize(results),
        timestamp=started,
        holodeck_version=f"holodeck-lsp {__version__}",
        environment=environment,
        models=models,
        repeats=repeat,
        model_summaries={
            model: summarize([result for result in results if result.model == model])
            for model in models
        },
    )


def _stamped(result: TestResult, model: str, repeat: int | None) -> TestResult:
    """The result with the model (and repeat) that produced it."""
    if result.model == model and result.repeat == repeat:
        return result
    return result.model_copy(update={"model": model, "repeat": repeat})


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


def _result_of(task: asyncio.Task[TestResult | None], item: PlannedCase) -> TestResult | None:
    """The case's result (None: a budget did not start it); if even the case's own guard
    failed, a failed result saying why; abandoned after a cancel: not run."""
    if task.cancelled() or not task.done():
        return _skipped(item, f"skipped: {CANCELLED}")
    error = task.exception()
    if error is None:
        return task.result()
    return _skipped(item, f"skipped: the case crashed: {type(error).__name__}: {error}")


def _not_started(item: PlannedCase, why: str) -> TestResult:
    return _skipped(item, f"skipped: not started: {why}")


def _skipped(item: PlannedCase, reason: str) -> TestResult:
    """Every turn of the case skipped for `reason`."""
    specs = turn_specs(item.case)
    first = item.graded_turn or 0
    turns = [
        TurnResult(turn_index=spec.index, input=spec.input, errors=[reason], skipped=True)
        for spec in specs[first : item.sent_turns]
    ]
    if item.case.turns is None:
        return single_turn_result(item.case.name, item.index, turns[0], _now())
    return multi_turn_result(item.case.name, item.index, turns, _now())


def _now() -> str:
    return datetime.now(UTC).isoformat(timespec="seconds")
