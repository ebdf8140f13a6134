"""An in-process scripted backend implementing the AgentBackend protocol, for executor tests.

Replies are scripted by the turn's input text (inputs are unique within a test): response,
tool calls, token usage, a delay, or an exception to raise. The fake records every session
(what was sent, with which files, whether it was closed) and the highest number of sessions
open at once, and it fails loudly if one session is ever sent two turns concurrently.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from holodeck_lsp.checker.loader import LoadOptions, load_agent_file
from holodeck_lsp.runner.backends.base import BackendInitError, SendResult, TurnFile
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TokenUsage, ToolInvocation


def usage(prompt: int, completion: int) -> TokenUsage:
    return TokenUsage(
        prompt_tokens=prompt, completion_tokens=completion, total_tokens=prompt + completion
    )


@dataclass(frozen=True)
class Reply:
    response: str = "ok"
    tools: tuple[ToolInvocation, ...] = ()
    usage: TokenUsage | None = None
    delay: float = 0.0
    error: BaseException | None = None


@dataclass
class FakeSession:
    backend: FakeBackend
    number: int
    sent: list[str] = field(default_factory=list)
    files: list[list[TurnFile]] = field(default_factory=list)
    closed: bool = False
    _busy: bool = False

    async def send(self, message: str, files: Sequence[TurnFile] = ()) -> SendResult:
        assert not self.closed, "send on a closed session"
        assert not self._busy, "two turns sent concurrently on one session"
        self._busy = True
        try:
            self.sent.append(message)
            self.files.append(list(files))
            reply = self.backend.replies.get(message, self.backend.default)
            if reply.delay:
                await asyncio.sleep(reply.delay)
            else:
                await asyncio.sleep(0)  # a real backend always yields to the loop
            if reply.error is not None:
                raise reply.error
            return SendResult(
                response=reply.response, tool_invocations=reply.tools, token_usage=reply.usage
            )
        finally:
            self._busy = False

    async def close(self) -> None:
        if not self.closed:
            self.closed = True
            self.backend.open -= 1


@dataclass
class FakeBackend:
    replies: dict[str, Reply] = field(default_factory=dict)
    default: Reply = field(default_factory=Reply)
    #: Creation ordinals (0-based) whose create_session raises.
    fail_create: dict[int, BaseException] = field(default_factory=dict)
    create_delay: float = 0.0
    sessions: list[FakeSession] = field(default_factory=list)
    open: int = 0
    max_open: int = 0
    closed: bool = False
    _created: int = 0

    async def create_session(self) -> FakeSession:
        number = self._created
        self._created += 1
        await asyncio.sleep(self.create_delay)
        if number in self.fail_create:
            raise self.fail_create[number]
        session = FakeSession(self, number)
        self.sessions.append(session)
        self.open += 1
        self.max_open = max(self.max_open, self.open)
        return session

    async def aclose(self) -> None:
        self.closed = True

    def session_for(self, first_input: str) -> FakeSession:
        for session in self.sessions:
            if session.sent and session.sent[0] == first_input:
                return session
        raise AssertionError(f"no session started with {first_input!r}")


def write_agent(
    folder: Path, cases_yaml: str, extra: str = "", *, name: str = "agent", model_extra: str = ""
) -> Agent:
    """A real agent.yaml in `folder`, loaded by the real loader (must have no errors)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "agent.yaml"
    path.write_text(
        f"name: {name}\n"
        f"model:\n  provider: openai\n  name: gpt-4o-mini\n{model_extra}"
        "instructions:\n  inline: Answer briefly.\n"
        f"{extra}"
        f"test_cases:\n{cases_yaml}",
        encoding="utf-8",
    )
    loaded = load_agent_file(path, options=LoadOptions(global_config=False, lints=False))
    assert not loaded.errors, [d.message for d in loaded.errors]
    assert loaded.agent is not None
    return loaded.agent


def multi_turn_cases(count: int, turns: int, prefix: str = "c") -> str:
    """`count` multi-turn cases named c0, c1, … whose turn inputs are `c0 t0`, `c0 t1`, …"""
    lines: list[str] = []
    for case in range(count):
        lines.append(f"  - name: {prefix}{case}\n    turns:")
        lines += [f'      - input: "{prefix}{case} t{turn}"' for turn in range(turns)]
    return "\n".join(lines) + "\n"


__all__ = ["BackendInitError", "FakeBackend", "FakeSession", "Reply", "usage", "write_agent"]
