"""Recording: wrap a backend and keep every turn it answered, as a cassette."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from holodeck_lsp.runner.backends.base import (
    AgentBackend,
    AgentSession,
    BackendProviderError,
    SendResult,
    TurnFile,
)
from holodeck_lsp.runner.backends.case_sessions import (
    CANCELLED,
    CaseSessionFactory,
    describe_error,
)
from holodeck_lsp.runner.backends.json_values import json_safe
from holodeck_lsp.runner.cassette.format import (
    Cassette,
    CassetteCase,
    CassetteToolCall,
    CassetteTurn,
    cassette_usage,
)


class RecordingSession:
    def __init__(self, inner: AgentSession, case: CassetteCase) -> None:
        self._inner = inner
        self._case = case

    async def send(self, message: str, files: Sequence[TurnFile] = ()) -> SendResult:
        started = time.perf_counter()
        try:
            result = await self._inner.send(message, files)
        except asyncio.CancelledError as cancelled:
            reason = str(cancelled.args[0]) if cancelled.args else CANCELLED
            if reason != CANCELLED:  # a timeout happened; a cancelled run's turn did not
                self._add(message, None, error=reason, started=started)
            raise
        except Exception as error:
            errored = isinstance(error, BackendProviderError)  # replayed as errored, too
            self._add(message, None, error=describe_error(error), started=started, errored=errored)
            raise
        self._add(message, result, error=None, started=started)
        return result

    async def close(self) -> None:
        await self._inner.close()

    def _add(
        self,
        message: str,
        result: SendResult | None,
        *,
        error: str | None,
        started: float,
        errored: bool = False,
    ) -> None:
        usage = result.token_usage if result is not None else None
        self._case.turns.append(
            CassetteTurn(
                input=message,
                response=result.response if result is not None else None,
                tool_calls=[
                    CassetteToolCall(
                        name=call.name,
                        args=json_safe(call.args),
                        result=json_safe(call.result),
                        error=call.error,
                        raw_arguments=call.raw_arguments,
                        call_problem=call.call_problem,
                    )
                    for call in (result.tool_invocations if result is not None else ())
                ],
                token_usage=cassette_usage(usage),
                error=error,
                errored=errored,
                duration_ms=round((time.perf_counter() - started) * 1000),
                tool_limit_reached=result.tool_limit_reached if result is not None else None,
            )
        )


class RecordingBackend:
    """Wraps a backend and records every turn as it happened (a single-turn case is a case
    with one turn). Call `write(path)` when the run ends — also after a cancelled run."""

    def __init__(self, inner: AgentBackend, agent_name: str, model: str | None = None) -> None:
        self._inner = inner
        self._agent_name = agent_name
        self._model = model
        self._cases: dict[int, CassetteCase] = {}

    async def create_case_session(self, name: str | None, index: int) -> AgentSession:
        inner = self._inner
        if isinstance(inner, CaseSessionFactory):
            session = await inner.create_case_session(name, index)
        else:
            session = await inner.create_session()
        case = CassetteCase(name=name, index=index)
        self._cases[index] = case  # a case run twice keeps its latest conversation
        return RecordingSession(session, case)

    async def create_session(self) -> AgentSession:
        return await self.create_case_session(None, max(self._cases, default=-1) + 1)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def cassette(self) -> Cassette:
        cases = [self._cases[index].model_copy(deep=True) for index in sorted(self._cases)]
        return Cassette(agent=self._agent_name, model=self._model, cases=cases)

    def write(self, path: Path, redact: Callable[[Any], Any] | None = None) -> None:
        self.cassette().write(path, redact)
