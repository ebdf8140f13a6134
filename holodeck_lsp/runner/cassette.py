"""Cassettes: record what a backend answered, turn by turn, and replay it without a network.

The file format is documented in docs/cassettes.md and is a stable contract (version 1):

    {"format": "holodeck-cassette", "version": 1, "agent": str,
     "cases": [{"name": str|null, "index": int,
                "turns": [{"input": str, "response": str|null,
                           "tool_calls": [{"name": str, "args": {...}, "result": any,
                                           "error": str|null}],
                           "token_usage": {"prompt_tokens": int, "completion_tokens": int,
                                           "total_tokens": int}|null,
                           "error": str|null, "duration_ms": int}]}]}

A replay never passes silently on a changed suite: a turn whose input differs from the
recorded one, a case or a turn the cassette does not have — each is an error on that turn.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from holodeck_lsp.runner.backend import (
    AgentBackend,
    AgentSession,
    BackendError,
    BackendInitError,
    BackendSessionError,
    BackendTimeoutError,
    SendResult,
    TurnFile,
)
from holodeck_lsp.runner.case_sessions import CANCELLED, CaseSessionFactory, describe_error
from holodeck_lsp.runner.json_values import json_safe
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import (
    TestReport,
    TestResult,
    TokenUsage,
    ToolInvocation,
    TurnResult,
)

FORMAT: Final = "holodeck-cassette"
VERSION: Final = 1
_TIMEOUT_PREFIX = "timed out after "


class CassetteError(BackendError):
    """The cassette cannot answer a turn (stale or missing). Says nothing about the session,
    so it never counts towards the two-failures rule."""


class CassetteFormatError(ValueError):
    """The file is not a readable cassette; the message names the file and the problem."""


# -- the format -------------------------------------------------------------------------------


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class CassetteToolCall(_Strict):
    name: str
    args: dict[str, Any] = Field(default_factory=dict)
    result: Any = None
    error: str | None = None


class CassetteUsage(_Strict):
    prompt_tokens: int = Field(ge=0)
    completion_tokens: int = Field(ge=0)
    total_tokens: int = Field(ge=0)


class CassetteTurn(_Strict):
    input: str
    response: str | None = None
    tool_calls: list[CassetteToolCall] = Field(default_factory=list)
    token_usage: CassetteUsage | None = None
    error: str | None = None
    duration_ms: int = Field(default=0, ge=0)


class CassetteCase(_Strict):
    name: str | None
    index: int = Field(ge=0)
    turns: list[CassetteTurn] = Field(default_factory=list)


class Cassette(_Strict):
    format: Literal["holodeck-cassette"] = FORMAT
    version: Literal[1] = VERSION
    agent: str
    cases: list[CassetteCase] = Field(default_factory=list)

    def to_json(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    def render(self, redact: Callable[[Any], Any] | None = None) -> str:
        data = self.to_json()
        if redact is not None:
            data = redact(data)
        return json.dumps(data, indent=2, ensure_ascii=False) + "\n"

    def write(self, path: Path, redact: Callable[[Any], Any] | None = None) -> None:
        path.write_text(self.render(redact), encoding="utf-8")


def load_cassette(path: Path) -> Cassette:
    """Read a cassette; raises CassetteFormatError saying what is wrong."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as error:
        raise CassetteFormatError(
            f"cannot read cassette {path}: {error.strerror or error}"
        ) from None
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise CassetteFormatError(f"cassette {path} is not JSON: {error}") from None
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise CassetteFormatError(f'{path} is not a holodeck cassette (no "format": "{FORMAT}")')
    if data.get("version") != VERSION:
        raise CassetteFormatError(
            f"cassette {path} has version {data.get('version')!r}; this holodeck-lsp reads "
            f"version {VERSION}"
        )
    try:
        return Cassette.model_validate(data)
    except ValidationError as error:
        first = error.errors()[0]
        where = ".".join(str(part) for part in first["loc"])
        raise CassetteFormatError(f"cassette {path}: {where}: {first['msg']}") from None


# -- recording --------------------------------------------------------------------------------


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
            self._add(message, None, error=describe_error(error), started=started)
            raise
        self._add(message, result, error=None, started=started)
        return result

    async def close(self) -> None:
        await self._inner.close()

    def _add(
        self, message: str, result: SendResult | None, *, error: str | None, started: float
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
                    )
                    for call in (result.tool_invocations if result is not None else ())
                ],
                token_usage=_usage(usage),
                error=error,
                duration_ms=round((time.perf_counter() - started) * 1000),
            )
        )


class RecordingBackend:
    """Wraps a backend and records every turn as it happened (a single-turn case is a case
    with one turn). Call `write(path)` when the run ends — also after a cancelled run."""

    def __init__(self, inner: AgentBackend, agent_name: str) -> None:
        self._inner = inner
        self._agent_name = agent_name
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
        return Cassette(agent=self._agent_name, cases=cases)

    def write(self, path: Path, redact: Callable[[Any], Any] | None = None) -> None:
        self.cassette().write(path, redact)


def _usage(usage: TokenUsage | None) -> CassetteUsage | None:
    if usage is None:
        return None
    return CassetteUsage(
        prompt_tokens=usage.prompt_tokens,
        completion_tokens=usage.completion_tokens,
        total_tokens=usage.total_tokens,
    )


# -- a result's answers as a cassette (re-grading) --------------------------------------------


def transcript_of(result: TestResult, index: int) -> CassetteCase:
    """A case's answers (responses, tool calls, usage, send errors) in cassette form, up to
    the first turn that was never sent: what re-grading the case replays. Matched by index
    (the name may have been edited since)."""
    turns: list[CassetteTurn] = []
    for turn in _turns_of(result):
        if turn.skipped:
            break
        turns.append(
            CassetteTurn(
                input=turn.input,
                response=turn.response,
                tool_calls=[
                    CassetteToolCall(name=c.name, args=c.args, result=c.result, error=c.error)
                    for c in turn.tool_invocations
                ],
                token_usage=_usage(turn.token_usage),
                # A turn without a response failed to send: replay its first error.
                error=(turn.errors[0] if turn.errors else "no response")
                if turn.response is None
                else None,
                duration_ms=turn.execution_time_ms,
            )
        )
    return CassetteCase(name=None, index=index, turns=turns)


def _turns_of(result: TestResult) -> list[TurnResult]:
    """What was sent and answered; a single-turn case as its one turn (never sent when it
    has errors and no answer)."""
    if result.turns is not None:
        return list(result.turns)
    return [
        TurnResult(
            turn_index=0,
            input=result.test_input or "-",
            response=result.agent_response,
            tool_invocations=result.tool_invocations,
            token_usage=result.token_usage,
            execution_time_ms=result.execution_time_ms,
            errors=result.errors,
            skipped=bool(result.errors) and result.agent_response is None,
        )
    ]


# -- replay -----------------------------------------------------------------------------------


class ReplaySession:
    def __init__(self, case: CassetteCase, label: str, file_turns: int) -> None:
        self._case = case
        self._label = label
        self._file_turns = file_turns
        self._next = 0

    async def send(self, message: str, files: Sequence[TurnFile] = ()) -> SendResult:
        index = self._next
        self._next += 1
        turns = self._case.turns
        if index >= len(turns):
            raise CassetteError(
                f"cassette has no turn {index} for case {self._label} (it recorded "
                f"{len(turns)} turn{'s' if len(turns) != 1 else ''}); record it again"
            )
        turn = turns[index]
        if turn.input != message:
            raise CassetteError(
                f"cassette is stale: turn {index} input differs (recorded "
                f"{_quote(turn.input)}, file {_quote(message)}); record it again"
            )
        if turn.error is not None:
            raise self._recorded_failure(index, turn.error)
        return SendResult(
            response=turn.response or "",
            tool_invocations=tuple(
                ToolInvocation(name=c.name, args=c.args, result=c.result, error=c.error)
                for c in turn.tool_calls
            ),
            token_usage=TokenUsage(
                prompt_tokens=turn.token_usage.prompt_tokens,
                completion_tokens=turn.token_usage.completion_tokens,
                total_tokens=turn.token_usage.total_tokens,
            )
            if turn.token_usage is not None
            else None,
        )

    async def close(self) -> None:
        return None

    def _recorded_failure(self, index: int, error: str) -> BackendError:
        """The same failure the recorded run saw. The format keeps no `recoverable` flag, so
        it is inferred: a failed turn that ended the recording while the file has more turns
        killed the session — unless the turn before it failed too (then the two-failures
        rule ends the session on replay as it did when recording)."""
        if error.startswith(_TIMEOUT_PREFIX):
            return BackendTimeoutError(error)
        turns = self._case.turns
        last = index == len(turns) - 1
        previous_failed = index > 0 and turns[index - 1].error is not None
        dead = last and self._file_turns > len(turns) and not previous_failed
        return BackendSessionError(error, recoverable=not dead)


class ReplayBackend:
    """Answers every turn from a cassette; creates no backend and uses no network. Cases
    match by name, else by position."""

    def __init__(self, cassette: Cassette, agent: Agent) -> None:
        self._agent = agent
        self._by_name = {case.name: case for case in cassette.cases if case.name is not None}
        self._by_index = {case.index: case for case in cassette.cases}

    async def create_case_session(self, name: str | None, index: int) -> AgentSession:
        case = self._by_name.get(name) if name is not None else None
        if case is None:
            case = self._by_index.get(index)
        label = repr(name) if name is not None else f"test_cases[{index}]"
        if case is None:
            raise BackendInitError(
                f"cassette has no case {label} (matched by name, else by index {index}); "
                "record it again"
            )
        test_cases = self._agent.test_cases or []
        test_case = test_cases[index] if index < len(test_cases) else None
        file_turns = 1
        if test_case is not None and test_case.turns is not None:
            file_turns = len(test_case.turns)
        return ReplaySession(case, label, file_turns)

    async def create_session(self) -> AgentSession:
        raise BackendInitError("a replay needs to know the test case (use run_suite)")

    async def aclose(self) -> None:
        return None


def _quote(text: str, limit: int = 60) -> str:
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return json.dumps(short, ensure_ascii=False)


# -- comparing reports ------------------------------------------------------------------------

#: Keys that differ between a recorded run and its replay by nature: when and how long.
VOLATILE_KEYS = frozenset(
    {"timestamp", "environment", "execution_time_ms", "total_duration_ms", "evaluation_time_ms"}
)


def comparable(report: TestReport) -> dict[str, Any]:
    """The report without what a replay cannot reproduce: timestamps, the environment,
    durations (of turns, cases, metrics and tool calls) and prompt-cache token counts
    (format v1 records prompt, completion and total tokens only)."""
    data: dict[str, Any] = _strip(report.model_dump(mode="json"))
    return data


def _strip(value: Any) -> Any:
    if isinstance(value, dict):
        stripped = {k: _strip(v) for k, v in value.items() if k not in VOLATILE_KEYS}
        if "cache_read_tokens" in stripped:
            stripped.pop("cache_read_tokens")
            stripped.pop("cache_creation_tokens", None)
        if "args" in stripped and "duration_ms" in stripped:
            stripped.pop("duration_ms")  # a tool invocation's own duration
        return stripped
    if isinstance(value, list):
        return [_strip(item) for item in value]
    return value
