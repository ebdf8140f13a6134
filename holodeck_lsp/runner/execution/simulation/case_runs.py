"""Which runner a planned case gets: a scripted case the case runner, a simulated-user
case the conversation (runner/execution/simulation/conversation.py) with its user source —
the simulator's model on a live run, the recording on a replay, a recording's user turns
with a live agent under `--replay-user` (docs/simulated-users.md, "Record and replay")."""

from __future__ import annotations

import os

from holodeck_lsp.runner.cassette.format import Cassette, CassetteCase
from holodeck_lsp.runner.cassette.replay import ReplayBackend
from holodeck_lsp.runner.execution.case_runner import CaseRun
from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.runner.execution.run_context import RunContext
from holodeck_lsp.runner.execution.simulation.conversation import SimulatedCaseRun
from holodeck_lsp.runner.execution.simulation.divergence import Divergence
from holodeck_lsp.runner.execution.simulation.simulator_client import SimulatorError
from holodeck_lsp.runner.execution.simulation.user_sources import LiveUser, RecordedUser, UserSource
from holodeck_lsp.runner.selection import PlannedCase
from holodeck_lsp.schema.results import TokenUsage
from holodeck_lsp.schema.results import UserSource as UserSourceKind


def case_run_for(
    context: RunContext, item: PlannedCase, ref: CaseRef, replay_user: Cassette | None = None
) -> CaseRun:
    simulated = item.case.simulated_user
    if simulated is None:
        return CaseRun(context, item, ref)
    backend = context.backend
    if isinstance(backend, ReplayBackend):
        recorded = backend.recorded_case(item.case.name, item.index)
        return SimulatedCaseRun(context, item, ref, user=_recorded_user(recorded))
    if replay_user is not None:
        recorded = _find(replay_user, item.case.name, item.index)
        divergence = Divergence(recorded.turns) if recorded is not None else None
        user = _recorded_user(recorded)
        return SimulatedCaseRun(context, item, ref, user=user, divergence=divergence)
    env = context.judges.env if context.judges is not None else os.environ
    try:
        live: UserSource = LiveUser(simulated, env)
    except SimulatorError as error:
        live = _Failing(str(error))
    return SimulatedCaseRun(context, item, ref, user=live)


def _find(cassette: Cassette, name: str | None, index: int) -> CassetteCase | None:
    by_name = next((c for c in cassette.cases if name is not None and c.name == name), None)
    return by_name or next((c for c in cassette.cases if c.index == index), None)


def _recorded_user(recorded: CassetteCase | None) -> UserSource:
    if recorded is None:
        return _Failing("the recording has no such case")
    simulation = recorded.simulated_user
    if simulation is None:
        return _Failing("the recording of this case has no simulated user: record it again")
    inputs = [turn.input for turn in recorded.turns]
    error = simulation.failure_detail if simulation.failure == "provider_error" else None
    return RecordedUser(inputs, simulation.scripted_turns, simulation.final_message, error)


class _Failing:
    """A user source that cannot answer (no API key, no recording): the simulator's failure."""

    kind: UserSourceKind = "simulated"

    def __init__(self, detail: str) -> None:
        self._detail = detail

    async def next_message(self, exchanges: object) -> tuple[str, TokenUsage | None]:
        raise SimulatorError(self._detail)

    async def aclose(self) -> None:
        return None
