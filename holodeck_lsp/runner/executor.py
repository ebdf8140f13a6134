"""Run a suite (or part of it) against a backend and produce its `TestReport`.

Up to `parallel` cases run at once (an `asyncio.Semaphore`), each in its own session; turns
of one case are always sequential (see `case_runner`). Results are always in file order,
whatever order the cases finish in.

Cancellation — the `cancel` event set, or the task running `run_suite` cancelled — stops new
sends, abandons the ones in flight, closes every session and still returns a report: turns
that were not answered are skipped with the reason `cancelled`, so the totals add up.
"""

from __future__ import annotations

import asyncio
import os
import platform
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from holodeck_lsp import __version__
from holodeck_lsp.engine.case_grading import turn_specs
from holodeck_lsp.engine.rollup import multi_turn_result, single_turn_result, summarize
from holodeck_lsp.engine.turn_grading import GradingOptions
from holodeck_lsp.runner.backend import AgentBackend
from holodeck_lsp.runner.case_runner import CaseRun, RunContext
from holodeck_lsp.runner.grader_loading import default_grader_timeout, grader_specs, load_graders
from holodeck_lsp.runner.judges.pool import JudgePool
from holodeck_lsp.runner.progress import CaseRef, ProgressSink
from holodeck_lsp.runner.selection import PlannedCase, Selection, plan_cases
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestReport, TestResult, TurnResult
from holodeck_lsp.schema.tools.mcp import MCPTool

PARALLEL_ENV = "HOLODECK_PARALLEL_TEST_CASES"


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
    (FR-009a). A non-positive or non-numeric environment value is ignored."""
    if cli is not None:
        return max(1, cli)
    configured = agent.execution.parallel_test_cases if agent.execution else None
    if configured is not None:
        return configured
    raw = env.get(PARALLEL_ENV, "").strip()
    if raw.isdigit() and int(raw) >= 1:
        return int(raw)
    return 1


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
    options = options or RunOptions()
    planned = plan_cases(agent, selection)
    started = _now()
    graders = load_graders(grader_specs(agent, planned), agent_dir)
    cancel = cancel if cancel is not None else asyncio.Event()
    cancelled = asyncio.ensure_future(cancel.wait())
    context = RunContext(
        agent=agent,
        agent_dir=agent_dir,
        backend=backend,
        graders=graders,
        grading=options.grading,
        llm_timeout=options.llm_timeout,
        cancel=cancel,
        cancelled=cancelled,
        progress=progress,
        judges=judges,
        retrieval_tools=frozenset(
            tool.name
            for tool in agent.tools or []
            if isinstance(tool, MCPTool) and tool.is_retrieval
        ),
    )
    gate = asyncio.Semaphore(max(1, options.parallel))
    refs = [
        CaseRef(
            position=position + 1,
            total=len(planned),
            index=item.index,
            name=item.case.name,
            turns=1 if item.graded_turn is not None else item.turn_count,
        )
        for position, item in enumerate(planned)
    ]

    async def one(item: PlannedCase, ref: CaseRef) -> TestResult:
        case_run = CaseRun(context, item, ref)
        async with gate:
            await case_run.converse()
        # Outside the gate: the next case is sent while this one's judges answer.
        return await case_run.finish()

    tasks = [asyncio.create_task(one(item, ref)) for item, ref in zip(planned, refs, strict=True)]
    try:
        if tasks:
            # `wait`, not `gather`: cancelling us must not cancel the cases, which wind down
            # on their own once `cancel` is set and close their sessions.
            await asyncio.wait(tasks)
    except asyncio.CancelledError:
        cancel.set()
        current = asyncio.current_task()
        if current is not None:
            current.uncancel()  # we return the partial report instead of re-raising
        await asyncio.wait(tasks)
    finally:
        cancelled.cancel()
    results = [_result_of(task, item) for task, item in zip(tasks, planned, strict=True)]
    environment = {
        "python": platform.python_version(),
        "platform": platform.system().lower(),
        "backend": type(backend).__name__,
        "parallel_test_cases": str(max(1, options.parallel)),
        **options.environment,
    }
    if cancel.is_set():
        environment["cancelled"] = "true"
    return TestReport(
        agent_name=agent.name,
        agent_config_path=str(options.config_path or agent_dir / "agent.yaml"),
        results=results,
        summary=summarize(results),
        timestamp=started,
        holodeck_version=f"holodeck-lsp {__version__}",
        environment=environment,
    )


def _result_of(task: asyncio.Task[TestResult], item: PlannedCase) -> TestResult:
    """The case's result; if even the case's own guard failed, a failed result saying why."""
    error = task.exception() if not task.cancelled() else asyncio.CancelledError("cancelled")
    if error is None:
        return task.result()
    reason = f"skipped: the case crashed: {type(error).__name__}: {error}"
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
