"""Run one simulated-user case: the scripted opening turns first, then the simulator's
messages until one holds a stop marker, each agent turn graded live as a scripted turn is
(the case runner's `_record`: progress shows each verdict as it happens), the `at_end` checks
once the conversation has ended (docs/simulated-users.md).

The simulator's failures end the conversation and are kept apart from the agent's: its
provider failing, no stop marker within `max_turns`, a message written as the agent, its
instructions repeated. The case is then `simulator_failed` (no verdict on the agent) unless
an answered turn had already failed on its own.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

from holodeck_lsp.engine.judging import Judging, turn_judge_requests
from holodeck_lsp.engine.rollup import multi_turn_result
from holodeck_lsp.engine.simulated_turns import (
    at_end_spec,
    broke_persona,
    conversation_turn_metrics,
    conversation_turn_spec,
    grade_at_end,
    leaked_instructions,
    prompt_fingerprint,
    simulator_label,
    stop_marker_in,
    transcript,
    written_as_agent,
)
from holodeck_lsp.engine.turn_grading import TurnOutcome, TurnSpec, judge_inputs
from holodeck_lsp.runner.execution.case_runner import CaseRun, _SessionState
from holodeck_lsp.runner.execution.case_sessions import CANCELLED
from holodeck_lsp.runner.execution.interrupts import Interrupted, close_session
from holodeck_lsp.runner.execution.simulation.divergence import Divergence
from holodeck_lsp.runner.execution.simulation.simulator_client import SimulatorError
from holodeck_lsp.runner.execution.simulation.user_sources import UserSource
from holodeck_lsp.schema.metrics import AnyMetric
from holodeck_lsp.schema.results import (
    SimulationResult,
    SimulatorFailure,
    TestResult,
    TurnResult,
)
from holodeck_lsp.schema.results import (
    UserSource as UserSourceKind,
)
from holodeck_lsp.schema.simulated_user import SimulatedUser
from holodeck_lsp.schema.test_case import FileInput

_log = logging.getLogger(__name__)
_SCRIPTED: UserSourceKind = "scripted"


class SimulatedCaseRun(CaseRun):
    """A CaseRun whose user messages after the scripted ones come from `user`."""

    def __init__(
        self, *args: Any, user: UserSource, divergence: Divergence | None = None, **kw: Any
    ) -> None:
        super().__init__(*args, **kw)
        simulated = self.planned.case.simulated_user
        assert simulated is not None
        self.simulated: SimulatedUser = simulated
        self.user = user
        self.divergence = divergence
        self.simulation = SimulationResult(
            model=simulator_label(simulated), fingerprint=prompt_fingerprint(simulated)
        )
        self._sources: dict[int, UserSourceKind] = {}
        self._at_end: TurnResult | None = None

    async def _converse_in_scope(self) -> None:
        session = None
        try:
            session, open_error = await self._open()
            if session is None:
                first = self.planned.case.turns[0].input if self.planned.case.turns else "-"
                spec = TurnSpec(index=0, input=first)
                await self._record(spec, TurnOutcome(skipped=True, skip_reason=open_error))
                return
            ended = await self._talk(session)
            if ended:
                if self._judged:  # the at_end checks come after every turn's verdict
                    await asyncio.wait(self._judged)
                self._at_end = await self._grade_at_end()
        except Exception as crash:  # a bug must not lose the turns already graded
            # Ours, neither the agent's nor the simulator's: the case fails saying so, as a
            # scripted case that crashes does (execution/case_runner.py).
            _log.exception("simulated case %s crashed", self.ref.label)
            reason = f"skipped: the case crashed: {type(crash).__name__}: {crash}"
            seen = {t.turn_index for t in self.turns} | self._judging
            index = max(seen, default=-1) + 1
            self.turns.append(
                TurnResult(turn_index=index, input="-", errors=[reason], skipped=True)
            )
        finally:
            if session is not None:
                await close_session(session)
            await self.user.aclose()

    async def _talk(self, session: Any) -> bool:
        """Converse until the simulator stops; True when it ended with a stop marker."""
        case, ctx = self.planned.case, self.context
        scripted = [turn.input for turn in case.turns or []]
        state = _SessionState()
        exchanges: list[tuple[str, str | None]] = []
        earlier: list[tuple[Any, ...]] = []
        while True:
            index = len(exchanges)
            source = _SCRIPTED if index < len(scripted) else self.user.kind
            written = scripted[index] if index < len(scripted) else None
            if written is None:
                written = await self._next_user_message(exchanges)
                if written is None:
                    return self.simulation.stop_marker is not None
            message = written
            spec = conversation_turn_spec(case, index, message)
            outcome = await self._send(session, spec, state)
            if earlier:
                outcome = replace(outcome, earlier_tool_invocations=tuple(earlier))
            earlier.append(tuple(outcome.tool_invocations))
            self._sources[index] = source
            self._check_divergence(index, outcome)
            stop = await self._record(spec, outcome)
            exchanges.append((message, outcome.response))
            if source != _SCRIPTED:
                self.simulation = self.simulation.model_copy(
                    update={"simulated_turns": self.simulation.simulated_turns + 1}
                )
            else:
                self.simulation = self.simulation.model_copy(
                    update={"scripted_turns": self.simulation.scripted_turns + 1}
                )
            if state.dead is not None or stop is not None or ctx.cancel.is_set():
                return False

    async def _next_user_message(self, exchanges: list[tuple[str, str | None]]) -> str | None:
        """The simulator's next message to send, or None when the conversation ends here
        (a stop marker, the simulator's failure, the run cancelled)."""
        simulated = self.simulated
        outcome = await self._race(self.user.next_message(list(exchanges)))
        if isinstance(outcome, Interrupted):
            if outcome.timed_out:
                self._fail("provider_error", f"the simulated user {outcome.reason}")
            else:
                await self._not_sent(len(exchanges), outcome.reason)
            return None
        if isinstance(outcome, BaseException):
            detail = str(outcome) if isinstance(outcome, SimulatorError) else repr(outcome)
            self._fail("provider_error", f"the simulated user's model failed: {detail}")
            return None
        message, usage = outcome
        if usage is not None:
            spent = self.simulation.token_usage
            total = usage if spent is None else spent + usage
            self.simulation = self.simulation.model_copy(update={"token_usage": total})
        marker = stop_marker_in(message, simulated.stop_markers)
        if marker is not None:
            self.simulation = self.simulation.model_copy(
                update={"stop_marker": marker, "final_message": message}
            )
            return None
        self.simulation = self.simulation.model_copy(update={"final_message": message})
        generated = len(exchanges) - self.simulation.scripted_turns
        if generated >= simulated.max_turns:
            self._fail(
                "never_stopped",
                f"the simulated user wrote no stop marker within max_turns "
                f"({simulated.max_turns} messages)",
            )
            return None
        why = written_as_agent(message) or None
        if why is not None:
            self._fail("answered_as_agent", f"the simulated user wrote as the agent: {why}")
            return None
        leak = leaked_instructions(message, simulated.instructions)
        if leak is not None:
            self._fail("leaked", f"the simulated user leaked its instructions: {leak}")
            return None
        broke = broke_persona(message, simulated.never_says)
        if broke is not None:
            self._fail("broke_persona", f"the simulated user broke persona: {broke}")
            return None
        if not message.strip():
            self._fail("provider_error", "the simulated user's model answered nothing")
            return None
        return message

    def _check_divergence(self, index: int, outcome: TurnOutcome) -> None:
        if self.divergence is None or self.simulation.diverged_at_turn is not None:
            return
        if outcome.skipped or outcome.errored:
            return
        how = self.divergence.compare(index, outcome)
        if how is not None:
            self.simulation = self.simulation.model_copy(
                update={"diverged_at_turn": index, "divergence": how}
            )

    async def _not_sent(self, index: int, reason: str) -> None:
        spec = TurnSpec(index=index, input="(not written: the run was cancelled)")
        await self._record(spec, TurnOutcome(skipped=True, skip_reason=reason or CANCELLED))

    def _fail(self, failure: SimulatorFailure, detail: str) -> None:
        if self.simulation.failure is None:
            self.simulation = self.simulation.model_copy(
                update={"failure": failure, "failure_detail": detail}
            )

    async def _grade_at_end(self) -> TurnResult | None:
        case = self.planned.case
        at_end = self.simulated.at_end
        if at_end is None:
            return None
        turns = sorted(self.turns, key=lambda turn: turn.turn_index)
        judging: Judging | None = None
        judges = self.context.judges
        metrics: list[AnyMetric] = list(at_end.evaluations or [])
        if judges is not None:
            answered = [t for t in turns if not t.skipped and not t.errored]
            spec = at_end_spec(case, len(turns), transcript(answered))
            last = answered[-1].response if answered else None
            outcome = TurnOutcome(response=last)
            requests = turn_judge_requests(judge_inputs(spec, outcome), metrics, judges.judging())
            verdicts = (
                await judges.verdicts(case.name, self.planned.index, spec.index, requests)
                if requests
                else {}
            )
            judging = judges.judging(verdicts)
        ctx = self.context
        # Code graders are user code (and read the case's tool state): a worker thread,
        # inside this case's scope (asyncio.to_thread copies the context).
        return await asyncio.to_thread(
            grade_at_end,
            case,
            turns,
            graders=ctx.graders,
            options=ctx.grading,
            judging=judging,
        )

    # -- hooks of CaseRun -----------------------------------------------------------------------

    def _metrics_of(self, spec: TurnSpec) -> list[AnyMetric]:
        return conversation_turn_metrics(self.context.agent, self.planned.case, spec.index)

    def _files_of(self, spec: TurnSpec) -> list[FileInput] | None:
        turns = self.planned.case.turns or []
        return turns[spec.index].files if spec.index < len(turns) else None

    def _roll_up(self) -> TestResult:
        case = self.planned.case
        turns = [
            turn.model_copy(update={"user_source": self._sources.get(turn.turn_index, "scripted")})
            for turn in sorted(self.turns, key=lambda turn: turn.turn_index)
        ]
        timestamp = datetime.now(UTC).isoformat(timespec="seconds")
        result = multi_turn_result(case.name, self.planned.index, turns, timestamp)
        simulation = self.simulation.model_copy(update={"at_end": self._at_end})
        update: dict[str, Any] = {"simulation": simulation}
        at_end = self._at_end
        if at_end is not None:
            update["passed"] = result.passed and at_end.passed
            update["errors"] = [*result.errors, *(f"[at end] {e}" for e in at_end.errors)]
            update["metric_results"] = [
                *result.metric_results,
                *(m.model_copy(update={"metric_name": f"at_end.{m.metric_name}"})
                  for m in at_end.metric_results),
            ]  # fmt: skip
            update["errored"] = result.errored or (at_end.errored and not at_end.passed)
        elif self.simulated.at_end is not None and simulation.failure is None:
            # The conversation never reached its end (the agent's session failed): the
            # at_end checks were not run, so the case cannot have passed.
            update["passed"] = False
        if simulation.failure is not None:
            failed_turn = any(not t.passed and not t.skipped and not t.errored for t in turns)
            update["passed"] = False
            update["simulator_failed"] = not failed_turn
            update["errored"] = False if not failed_turn else result.errored
            update["errors"] = [
                *update.get("errors", result.errors),
                f"[simulated user] {simulation.failure}: {simulation.failure_detail}",
            ]
        return result.model_copy(update=update)
