"""Where a simulated conversation's next user message comes from: the simulator's model
(live), or a recording of an earlier conversation (a replay, or "replay the user, live
agent"). Both answer `next_message(exchanges)`; a failure to answer raises SimulatorError.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from holodeck_lsp.runner.execution.simulation.simulator_client import (
    SimulatorClient,
    SimulatorError,
)
from holodeck_lsp.schema.results import TokenUsage
from holodeck_lsp.schema.results import UserSource as UserSourceKind
from holodeck_lsp.schema.simulated_user import SimulatedUser

#: What a recording without the simulator's last message ends with: the default stop marker
#: (the recorded conversation ended there, however it ended).
RECORDING_ENDS = "###STOP###"


class UserSource(Protocol):
    #: "simulated" (a model writes) or "recorded" (a recording is read back).
    kind: UserSourceKind

    async def next_message(
        self, exchanges: Sequence[tuple[str, str | None]]
    ) -> tuple[str, TokenUsage | None]: ...

    async def aclose(self) -> None: ...


class LiveUser:
    """The simulator's model, asked over the wire for each message."""

    kind: UserSourceKind = "simulated"

    def __init__(self, simulated: SimulatedUser, env: Mapping[str, str]) -> None:
        self._instructions = simulated.instructions
        self._client = SimulatorClient(simulated.model, env)

    async def next_message(
        self, exchanges: Sequence[tuple[str, str | None]]
    ) -> tuple[str, TokenUsage | None]:
        return await self._client.next_message(self._instructions, exchanges)

    async def aclose(self) -> None:
        await self._client.aclose()


class RecordedUser:
    """A recorded conversation's user messages after the scripted ones, then its last
    message (the one that ended it). Deterministic: no model is asked."""

    kind: UserSourceKind = "recorded"

    def __init__(
        self,
        inputs: Sequence[str],
        scripted: int,
        final_message: str | None,
        provider_error: str | None = None,
    ) -> None:
        self._messages = list(inputs[scripted:])
        self._scripted = scripted
        self._final = final_message
        #: The recorded simulator's provider failed where the recording ends: so does this.
        self._provider_error = provider_error

    async def next_message(
        self, exchanges: Sequence[tuple[str, str | None]]
    ) -> tuple[str, TokenUsage | None]:
        position = len(exchanges) - self._scripted
        if position < len(self._messages):
            return self._messages[position], None
        if position == len(self._messages):
            if self._provider_error is not None:
                raise SimulatorError(f"(recorded) {self._provider_error}")
            return self._final if self._final is not None else RECORDING_ENDS, None
        raise SimulatorError("the recording has no more user messages")

    async def aclose(self) -> None:
        return None
