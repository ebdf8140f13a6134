"""Replay: answer every turn from a cassette, with no backend and no network.

A replay never passes silently on a changed suite: a turn whose input differs from the
recorded one, a case or a turn the cassette does not have — each is an error on that turn.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence

from holodeck_lsp.runner.backends.base import (
    AgentSession,
    BackendError,
    BackendInitError,
    BackendProviderError,
    BackendSessionError,
    BackendTimeoutError,
    SendResult,
    TurnFile,
)
from holodeck_lsp.runner.cassette.format import (
    Cassette,
    CassetteCase,
    CassetteError,
    CassetteJudgement,
)
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TokenUsage

_TIMEOUT_PREFIX = "timed out after "


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
            raise self._recorded_failure(index, turn.error, errored=turn.errored)
        return SendResult(
            response=turn.response or "",
            tool_invocations=tuple(c.replayed() for c in turn.tool_calls),
            token_usage=TokenUsage(
                prompt_tokens=turn.token_usage.prompt_tokens,
                completion_tokens=turn.token_usage.completion_tokens,
                total_tokens=turn.token_usage.total_tokens,
            )
            if turn.token_usage is not None
            else None,
            tool_limit_reached=turn.tool_limit_reached,
        )

    async def close(self) -> None:
        return None

    def _recorded_failure(self, index: int, error: str, *, errored: bool = False) -> BackendError:
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
        if errored:  # the provider's refusal when recording: not measured then, nor now
            return BackendProviderError(error, recoverable=not dead)
        return BackendSessionError(error, recoverable=not dead)


class ReplayBackend:
    """Answers every turn from a cassette; creates no backend and uses no network. Cases
    match by name, else by position."""

    def __init__(self, cassette: Cassette, agent: Agent) -> None:
        _refuse_several_answers_per_case(cassette)
        self._agent = agent
        self._by_name = {case.name: case for case in cassette.cases if case.name is not None}
        self._by_index = {case.index: case for case in cassette.cases}
        #: What the front end says before the run (a recording no test case replays).
        self.notes: tuple[str, ...] = _unmatched_note(cassette, agent, self._find)

    def _find(self, name: str | None, index: int) -> CassetteCase | None:
        case = self._by_name.get(name) if name is not None else None
        return case if case is not None else self._by_index.get(index)

    def recorded_case(self, name: str | None, index: int) -> CassetteCase | None:
        """The recording of a case (its simulated user's messages, say), or None."""
        return self._find(name, index)

    async def create_case_session(self, name: str | None, index: int) -> AgentSession:
        case = self._find(name, index)
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


class RecordedJudgements:
    """The judgements a cassette recorded, found for a case the way `ReplayBackend` finds
    its conversation: by name, else by index."""

    def __init__(self, cassette: Cassette) -> None:
        self._by_name = {case.name: case for case in cassette.cases if case.name is not None}
        self._by_index = {case.index: case for case in cassette.cases}

    def of_turn(self, name: str | None, index: int, turn: int) -> list[CassetteJudgement]:
        case = self._by_name.get(name) if name is not None else None
        if case is None:
            case = self._by_index.get(index)
        if case is None:
            return []
        if turn == len(case.turns) and case.simulated_user is not None:
            return case.simulated_user.at_end_judgements  # a simulated case's at_end checks
        if turn >= len(case.turns):
            return []
        return case.turns[turn].judgements


def _refuse_several_answers_per_case(cassette: Cassette) -> None:
    """A cassette answers each case once. One holding a case twice (several models' or
    repeats' answers put together) would replay whichever came last, with judge verdicts
    of another answer: refused, saying which recording to replay instead."""
    seen: set[tuple[str | None, int]] = set()
    for case in cassette.cases:
        key = (case.name, case.index)
        if key in seen:
            label = repr(case.name) if case.name is not None else f"test_cases[{case.index}]"
            raise BackendInitError(
                f"the cassette records case {label} more than once (answers of several models "
                "or repeats); replay one model's recording — a stored model-matrix run keeps "
                "one per model: recording.json and recording.<model>.json"
            )
        seen.add(key)


def _unmatched_note(
    cassette: Cassette, agent: Agent, find: Callable[[str | None, int], CassetteCase | None]
) -> tuple[str, ...]:
    """The recorded cases no test case of the agent finds (renamed or removed since), named:
    they are not replayed, which a replay must not leave unsaid (docs/cassettes.md)."""
    used = {id(find(case.name, index)) for index, case in enumerate(agent.test_cases or [])}
    unmatched = [case for case in cassette.cases if id(case) not in used]
    if not unmatched:
        return ()
    shown = [repr(c.name) if c.name is not None else f"test_cases[{c.index}]" for c in unmatched]
    more = f" and {len(shown) - 10} more" if len(shown) > 10 else ""
    count = len(unmatched)
    return (
        f"the cassette records {count} case{'s' if count != 1 else ''} no test case matches "
        f"(by name, else by index), not replayed: {', '.join(shown[:10])}{more}; renamed or "
        "removed since it was recorded? record it again",
    )


def _quote(text: str, limit: int = 60) -> str:
    short = text if len(text) <= limit else text[: limit - 1] + "…"
    return json.dumps(short, ensure_ascii=False)
