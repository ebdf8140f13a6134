"""Run one test case: open its session, send its turns strictly in order, grade each turn as
it is answered, close the session whatever happens.

Failure rules (docs/running.md#timeouts-and-failures):
- a send that raises or outlives `llm_timeout` fails that turn; the next turn is still sent
  on the same session;
- the session is dead after `BackendSessionError(recoverable=False)` or after two consecutive
  failed sends: the remaining turns are skipped with the reason;
- a session that cannot be created fails the case (every turn skipped with the reason);
- when the run is cancelled the send in flight is abandoned and the unsent turns are skipped
  with the reason `cancelled`;
- a code grader with `fail_on_error: true` that raises stops the case at that turn (as
  upstream's does): the remaining turns are skipped with the reason (engine
  `case_stop_reason`).

Turns are graded live (engine `grade_case_turn`, the step `grade_case` composes) so progress
can show each turn's verdict as it happens; the case is rolled up with the engine's
`roll_up_case`.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable, Coroutine, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from typing import Any, TypeVar

from holodeck_lsp.engine.case_grading import (
    case_stop_reason,
    grade_case_turn,
    roll_up_case,
    turn_metrics,
    turn_specs,
)
from holodeck_lsp.engine.judging import Judging, retrieved_chunks, turn_judge_requests
from holodeck_lsp.engine.turn_grading import (
    TurnOutcome,
    TurnSpec,
    judge_inputs,
)
from holodeck_lsp.runner import trace_hooks as tracing
from holodeck_lsp.runner.agent_code.case_scope import CaseScope, entered_case
from holodeck_lsp.runner.backends.base import (
    AgentSession,
    BackendProviderError,
    BackendSessionError,
    SendResult,
)
from holodeck_lsp.runner.execution.case_sessions import (
    CANCELLED,
    CaseSessionFactory,
    describe_error,
)
from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.runner.execution.interrupts import (
    Interrupted,
    close_session,
    close_when_opened,
    race,
)
from holodeck_lsp.runner.execution.run_context import RunContext
from holodeck_lsp.runner.execution.turn_failures import counts_as_failure, may_stop_the_case
from holodeck_lsp.runner.execution.turn_files import prepare_files
from holodeck_lsp.runner.execution.turn_order import TurnOrder
from holodeck_lsp.runner.judges.pool import JudgePool
from holodeck_lsp.runner.limits.weather import provider_timeout, watching_turn
from holodeck_lsp.runner.selection import PlannedCase
from holodeck_lsp.schema.metrics import AnyMetric, CodeMetric
from holodeck_lsp.schema.results import TestResult, TurnResult
from holodeck_lsp.schema.test_case import FileInput

_log = logging.getLogger(__name__)
_T = TypeVar("_T")

#: Consecutive failed sends after which the session counts as dead
#: (docs/running.md#timeouts-and-failures).
MAX_CONSECUTIVE_FAILURES = 2


@dataclass(slots=True)
class _SessionState:
    failures: int = 0
    #: Why the remaining turns are skipped, once the session is gone.
    dead: str | None = None


@dataclass(slots=True)
class CaseRun:
    context: RunContext
    planned: PlannedCase
    ref: CaseRef
    turns: list[TurnResult] = field(default_factory=list)
    #: Turns waiting for their judges (judged while the conversation goes on).
    _judged: list[asyncio.Task[str | None]] = field(default_factory=list)
    _judging: set[int] = field(default_factory=set)
    #: Announces the graded turns in turn order (a judged turn may be graded after the next).
    _order: TurnOrder = field(init=False)
    #: What retrieval tools returned in this session so far.
    _retrieved: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self._order = TurnOrder(lambda turn: self._notify("turn_finished", self.ref, turn))

    async def run(self) -> TestResult:
        """The case's result; never raises for anything the backend or a grader does."""
        await self.converse()
        return await self.finish()

    async def converse(self) -> None:
        """Send the case's turns (what holds one of the run's `parallel` case slots); the
        judges may still be grading when this returns."""
        self._notify("case_started", self.ref)
        # A fresh scope per case run: stateful function tools keep their state in it, and the
        # session (opened inside) and every tool call inherit it (agent_code/case_scope.py).
        scope = CaseScope(
            self.planned.case.name, self.planned.index, self.context.model, self.ref.repeat
        )
        with entered_case(scope):
            await self._converse_in_scope()

    async def _converse_in_scope(self) -> None:
        session: AgentSession | None = None
        specs = turn_specs(self.planned.case)[: self.planned.sent_turns]
        try:
            session, open_error = await self._open()
            if session is None:
                for spec in self._graded(specs):
                    skipped = TurnOutcome(skipped=True, skip_reason=open_error)
                    await self._record(spec, skipped)
            else:
                await self._converse(session, specs)
        except Exception as crash:  # an executor or grading bug must not lose other turns
            _log.exception("case %s crashed", self.ref.label)
            reason = f"the case crashed: {type(crash).__name__}: {crash}"
            done = {turn.turn_index for turn in self.turns} | self._judging
            for spec in self._graded(specs):
                if spec.index not in done:
                    self.turns.append(_bare(spec, f"skipped: {reason}", skipped=True))
        finally:
            if session is not None:
                await close_session(session)

    async def finish(self) -> TestResult:
        """Wait for the turns' judges, roll the case up."""
        if self._judged:
            await asyncio.wait(self._judged)
        self._order.flush()
        result = self._roll_up()
        if self.context.model is not None or self.ref.repeat is not None:
            # Which model and repeat produced it, before anyone sees it (progress included).
            result = result.model_copy(
                update={"model": self.context.model, "repeat": self.ref.repeat}
            )
        self._notify("case_finished", self.ref, result)
        return result

    # -- steps -------------------------------------------------------------------------------

    async def _open(self) -> tuple[AgentSession | None, str]:
        ctx = self.context
        if ctx.cancel.is_set():
            return None, CANCELLED
        backend = ctx.backend
        opening: Coroutine[Any, Any, AgentSession]
        if isinstance(backend, CaseSessionFactory):
            opening = backend.create_case_session(self.planned.case.name, self.planned.index)
        else:
            opening = backend.create_session()
        outcome = await self._race(opening, on_abandon=close_when_opened)
        if isinstance(outcome, Interrupted):
            if outcome.timed_out:
                return None, f"the session could not be created: {outcome.reason}"
            return None, outcome.reason
        if isinstance(outcome, BaseException):
            return None, f"the session could not be created: {describe_error(outcome)}"
        return outcome, ""

    async def _converse(self, session: AgentSession, specs: list[TurnSpec]) -> None:
        state = _SessionState()
        first_graded = self.planned.graded_turn or 0
        context_errors: list[str] = []
        #: Each earlier turn's tool calls, context turns included: graders that replay the
        #: whole conversation (a stateful benchmark's) read them from the context.
        earlier: list[tuple[Any, ...]] = []
        for spec in specs:
            outcome = await self._send(session, spec, state)
            if earlier:
                outcome = replace(outcome, earlier_tool_invocations=tuple(earlier))
            earlier.append(tuple(outcome.tool_invocations))
            spec = self._with_retrieved(spec, outcome)
            if spec.index < first_graded:
                # A context turn of `--turn N`: not graded, but its failure makes turn N's
                # context incomplete, so it is reported on turn N.
                context_errors += [f"context turn {spec.index}: {e}" for e in outcome.errors]
                continue
            if context_errors and not outcome.skipped:
                outcome = replace(outcome, errors=(*context_errors, *outcome.errors))
            stop = await self._record(spec, outcome)
            if stop is not None and state.dead is None:
                state.dead = stop

    def _with_retrieved(self, spec: TurnSpec, outcome: TurnOutcome) -> TurnSpec:
        """`spec` with the session's retrieved passages as its retrieval_context, when it
        sets none itself and a retrieval tool returned something."""
        tools = self.context.retrieval_tools
        if not tools:
            return spec
        self._retrieved += retrieved_chunks(outcome.tool_invocations, tools)
        if spec.retrieval_context is None and self._retrieved:
            return replace(spec, retrieval_context=tuple(self._retrieved))
        return spec

    async def _send(
        self, session: AgentSession, spec: TurnSpec, state: _SessionState
    ) -> TurnOutcome:
        ctx = self.context
        if state.dead is not None:
            return TurnOutcome(skipped=True, skip_reason=state.dead)
        if ctx.cancel.is_set():
            state.dead = CANCELLED
            return TurnOutcome(skipped=True, skip_reason=CANCELLED)
        files, file_errors = prepare_files(self._files_of(spec), ctx.agent_dir)
        started = time.perf_counter()
        # The send's task reports the provider's weather; its spans go under the turn's.
        with watching_turn() as weather, tracing.sending(self.ref, spec.index):
            outcome = await self._race(session.send(spec.input, files))
        duration_ms = round((time.perf_counter() - started) * 1000)
        if isinstance(outcome, SendResult):
            state.failures = 0
            return TurnOutcome(
                response=outcome.response,
                tool_invocations=tuple(outcome.tool_invocations),
                token_usage=outcome.token_usage,
                duration_ms=duration_ms,
                errors=tuple(file_errors),
                tool_limit_reached=outcome.tool_limit_reached,
            )
        if isinstance(outcome, Interrupted) and not outcome.timed_out:
            state.dead = outcome.reason
            return TurnOutcome(skipped=True, skip_reason=outcome.reason)
        error = outcome.reason if isinstance(outcome, Interrupted) else describe_error(outcome)
        # llm_timeout measures the model: a turn that spent it on the provider's refusals or
        # queued at the rate limit was not measured (docs/running.md "Long runs").
        weathered = None
        if isinstance(outcome, Interrupted) and ctx.llm_timeout is not None:
            weathered = provider_timeout(weather, ctx.llm_timeout)
        error = weathered or error
        if counts_as_failure(outcome):
            state.failures += 1
        if isinstance(outcome, BackendSessionError) and not outcome.recoverable:
            state.dead = f"the session was lost on turn {spec.index}: {error}"
        elif state.failures >= MAX_CONSECUTIVE_FAILURES:
            state.dead = (
                f"the session is unrecoverable: turns {spec.index - 1} and {spec.index} both failed"
            )
        # The provider's, not a verdict.
        errored = isinstance(outcome, BackendProviderError) or weathered is not None
        return TurnOutcome(duration_ms=duration_ms, errors=(*file_errors, error), errored=errored)

    async def _race(
        self,
        work: Coroutine[Any, Any, _T],
        on_abandon: Callable[[Any], None] | None = None,
    ) -> _T | BaseException | Interrupted:
        ctx = self.context
        return await race(
            work, cancelled=ctx.cancelled, cancel=ctx.cancel, timeout=ctx.llm_timeout,
            on_abandon=on_abandon,
        )  # fmt: skip

    async def _record(self, spec: TurnSpec, outcome: TurnOutcome) -> str | None:
        """Grade and keep one turn; returns why the case stops here (fail_on_error), if so."""
        self._order.expect(spec.index)
        metrics = self._metrics_of(spec)
        judges = self.context.judges
        if judges is not None and not outcome.skipped:
            requests = turn_judge_requests(judge_inputs(spec, outcome), metrics, judges.judging())
            if requests and may_stop_the_case(metrics):
                # A `fail_on_error` grader decides whether the next turn is sent at all: this
                # turn is graded (judges included) before the conversation goes on.
                return await self._judge_and_grade(spec, outcome, metrics, judges)
            if requests:
                # Judged in the background: the next turn is sent meanwhile, and the case
                # slot is freed before the judges answer (`finish` waits for them).
                task = asyncio.create_task(self._judge_and_grade(spec, outcome, metrics, judges))
                self._judged.append(task)
                self._judging.add(spec.index)
                return None
        # No judge call needed: judged metrics say why they were skipped (no context, …).
        return await self._grade_and_add(
            spec, outcome, metrics, judges.judging() if judges is not None else None
        )

    async def _judge_and_grade(
        self,
        spec: TurnSpec,
        outcome: TurnOutcome,
        metrics: Sequence[AnyMetric],
        judges: JudgePool,
    ) -> str | None:
        case = self.planned.case
        try:
            requests = turn_judge_requests(judge_inputs(spec, outcome), metrics, judges.judging())
            with tracing.judging(self.ref, spec.index):
                verdicts = await judges.verdicts(
                    case.name, self.planned.index, spec.index, requests
                )
            judging: Judging | None = judges.judging(verdicts)
        except Exception:  # a judging bug must not lose the turn: its judged metrics skip
            _log.exception("judging turn %s of %s failed", spec.index, self.ref.label)
            judging = None
        return await self._grade_and_add(spec, outcome, metrics, judging)

    async def _grade_and_add(
        self,
        spec: TurnSpec,
        outcome: TurnOutcome,
        metrics: Sequence[AnyMetric],
        judging: Judging | None,
    ) -> str | None:
        """Grade one turn, keep and announce it; returns why the case stops here, if so."""
        if not outcome.skipped and any(isinstance(m, CodeMetric) for m in metrics):
            # Code graders are user code with a time limit of up to minutes: grade in a
            # worker thread so other cases keep sending meanwhile.
            result = await asyncio.to_thread(self._grade_now, spec, outcome, metrics, judging)
        else:
            result = self._grade_now(spec, outcome, metrics, judging)
        self.turns.append(result)
        self._order.graded(result)
        return case_stop_reason(metrics, result)

    def _grade_now(
        self,
        spec: TurnSpec,
        outcome: TurnOutcome,
        metrics: Sequence[AnyMetric],
        judging: Judging | None,
    ) -> TurnResult:
        return grade_case_turn(
            self.context.agent,
            self.planned.case,
            spec,
            outcome,
            graders=self.context.graders,
            options=self.context.grading,
            metrics=metrics,
            judging=judging,
        )

    def _roll_up(self) -> TestResult:
        timestamp = datetime.now(UTC).isoformat(timespec="seconds")
        case = self.planned.case
        turns = sorted(self.turns, key=lambda turn: turn.turn_index)
        if case.turns is None and not turns:
            turns = [_bare(turn_specs(case)[0], "skipped: not run", True)]
        return roll_up_case(case, self.planned.index, turns, timestamp)

    # -- helpers -----------------------------------------------------------------------------

    def _metrics_of(self, spec: TurnSpec) -> list[AnyMetric]:
        """The metrics grading turn `spec` (a simulated conversation chooses its own)."""
        return turn_metrics(self.context.agent, self.planned.case, spec.index)

    def _graded(self, specs: list[TurnSpec]) -> list[TurnSpec]:
        first = self.planned.graded_turn or 0
        return [spec for spec in specs if spec.index >= first]

    def _files_of(self, spec: TurnSpec) -> list[FileInput] | None:
        case = self.planned.case
        return case.turns[spec.index].files if case.turns is not None else case.files

    def _notify(self, event: str, *args: Any) -> None:
        progress = self.context.progress
        if progress is None:
            return
        try:
            getattr(progress, event)(*args)
        except Exception:  # a display bug must not fail a case
            _log.exception("progress callback %s failed", event)


def _bare(spec: TurnSpec, error: str, skipped: bool = False) -> TurnResult:
    return TurnResult(turn_index=spec.index, input=spec.input, errors=[error], skipped=skipped)
