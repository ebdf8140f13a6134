"""The Claude backend's API calls through the limiting relay (backends/claude/relay.py): the
real claude-agent-sdk and its bundled Claude Code CLI against the fake Anthropic Messages API
with provider weather (tests/fakes/faults.py). Retries are the relay's, within the turn's
budget (the fault counts the fake saw prove it, and that the CLI did not retry on its own);
a spent budget errors the turn; requests in flight are bounded by the endpoint's limiter,
which `limits:` in holodeck-lsp.yaml configures, and which the judges share."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.runner.backends.base import (
    BackendConnectionError,
    BackendProviderError,
    SendResult,
)
from holodeck_lsp.runner.backends.claude.session import ClaudeSession
from holodeck_lsp.runner.backends.claude_backend import ClaudeBackend
from holodeck_lsp.runner.execution.executor import RunOptions, run_suite
from holodeck_lsp.runner.judges.transport import JudgeTransport
from holodeck_lsp.runner.limits import registry
from holodeck_lsp.runner.limits.endpoint import EndpointLimiter
from holodeck_lsp.runner.project_limits import apply_project_limits
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.llm import LLMProvider
from tests.fakes.anthropic_server import FakeAnthropicServer, Reply
from tests.fakes.faults import FaultPlan
from tests.runner.backends.test_claude_backend import needs_cli

# Each test starts the bundled CLI (seconds each).
pytestmark = [needs_cli, pytest.mark.slow]

MODEL = "claude-test-1"


@pytest.fixture(autouse=True)
def _fresh_limiters() -> Iterator[None]:
    """Each test sets its own limits; the process's settings come back after it."""
    before = registry.settings()
    registry.configure(registry.LimitSettings())
    yield
    registry.configure(before)


def _budget(retries: int) -> None:
    registry.configure(registry.LimitSettings(retry_budget=retries))


def _agent(tmp_path: Path, server: FakeAnthropicServer, cases: int = 1) -> Agent:
    lines = [
        "name: relayed",
        f'model: {{provider: anthropic, name: {MODEL}, endpoint: "{server.base_url}"}}',
        'instructions: {inline: "Answer."}',
        "evaluations:",
        "  metrics:",
        "    - {type: standard, metric: equality}",
        "test_cases:",
    ]
    lines += [f'  - {{name: c{n}, input: "q{n}", ground_truth: "ok"}}' for n in range(cases)]
    loaded = load_agent_text(
        "\n".join(lines) + "\n", tmp_path / "agent.yaml", LoadOptions(home=tmp_path, env={})
    )
    assert loaded.agent is not None, [d.message for d in loaded.diagnostics]
    return loaded.agent


def _backend(
    tmp_path: Path, server: FakeAnthropicServer, agent: Agent | None = None
) -> ClaudeBackend:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "ANTHROPIC_API_KEY": "sk-ant-fake-key",
        # Were it honoured, the CLI would retry each refusal 3 times on its own.
        "CLAUDE_CODE_MAX_RETRIES": "3",
    }
    return ClaudeBackend(agent or _agent(tmp_path, server), [], env, agent_dir=tmp_path)


def _limiter(server: FakeAnthropicServer) -> EndpointLimiter:
    return registry.limiter_for(server.base_url, f"anthropic:{MODEL}")


async def test_faults_within_the_budget_are_retried_by_the_relay_not_the_cli(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    _budget(3)
    fake_anthropic.faults = FaultPlan(scripted=["429", "503", "drop"], retry_after=0.6)
    fake_anthropic.script(Reply(text="ok"))
    backend = _backend(tmp_path, fake_anthropic)
    try:
        session = await backend.create_session()
        started = time.monotonic()
        result = await session.send("q0")
    finally:
        await backend.aclose()
    assert result.response == "ok"
    assert time.monotonic() - started >= 0.6  # the 429's Retry-After was waited
    seen = fake_anthropic.faults.seen
    assert (seen["429"], seen["503"], seen["drop"]) == (1, 1, 1)
    # One request from the CLI, sent 4 times by the relay: its 3 retries, none of the CLI's.
    assert len(fake_anthropic.conversation_requests) == 4
    counts = _limiter(fake_anthropic).counts
    assert counts.retries == 3 and counts.limited == 1
    # The relay's path prefix never reaches the provider; the key does, in its header.
    request = fake_anthropic.conversation_requests[-1]
    assert request.path.startswith("/v1/messages")
    assert request.headers.get("x-api-key") == "sk-ant-fake-key"


async def test_faults_beyond_the_budget_error_the_turn_and_the_run_counts_it(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    _budget(2)
    # 503s: a 429 with a Retry-After this short is the limit's pacing probe, which spends
    # time rather than the budget (runner/limits/transport.py).
    fake_anthropic.faults = FaultPlan(scripted=["503", "503", "503"])
    fake_anthropic.script(Reply(text="never sent"))
    agent = _agent(tmp_path, fake_anthropic)
    backend = _backend(tmp_path, fake_anthropic, agent)
    try:
        report = await run_suite(agent, tmp_path, backend, options=RunOptions())
    finally:
        await backend.aclose()
    assert report.summary.errored == 1 and report.summary.failed == 0, report.summary
    assert any("503" in error for error in report.results[0].errors), report.results[0].errors
    # The first send and the budget's 2 retries; the CLI, told 0, sent it once.
    assert fake_anthropic.faults.seen["requests"] == 3


async def test_a_dropped_connection_beyond_the_budget_errors_the_turn(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    _budget(1)
    fake_anthropic.faults = FaultPlan(scripted=["drop", "drop"])
    fake_anthropic.script(Reply(text="back"))
    backend = _backend(tmp_path, fake_anthropic)
    try:
        session = await backend.create_session()
        with pytest.raises(BackendProviderError) as failure:
            await session.send("q0")
        assert not isinstance(failure.value, BackendConnectionError)  # it connected
        again = await session.send("q1")  # the next turn has a budget of its own
    finally:
        await backend.aclose()
    assert "connection was lost" in str(failure.value)
    assert again.response == "back"
    assert fake_anthropic.faults.seen["drop"] == 2


async def test_an_endpoint_that_cannot_be_reached_is_a_connection_error(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    _budget(0)
    backend = _backend(tmp_path, fake_anthropic)
    try:
        session = await backend.create_session()
        await fake_anthropic.stop()  # the API goes away after the CLI started
        with pytest.raises(BackendConnectionError, match="cannot reach the Anthropic API"):
            await session.send("q0")
    finally:
        await backend.aclose()


async def _sessions(backend: ClaudeBackend, count: int) -> list[ClaudeSession]:
    """`count` sessions, every CLI started before any turn: the turns then start together."""
    return list(await asyncio.gather(*(backend.create_session() for _ in range(count))))


async def _turns(sessions: list[ClaudeSession]) -> list[SendResult]:
    return list(await asyncio.gather(*(s.send(f"q{n}") for n, s in enumerate(sessions))))


async def test_max_in_flight_in_holodeck_lsp_yaml_bounds_the_agents_requests(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    (tmp_path / "holodeck-lsp.yaml").write_text("limits:\n  anthropic: {max_in_flight: 2}\n")
    apply_project_limits(tmp_path / "agent.yaml")
    # Three turns (one more than the cap is all the cap needs: each is a CLI process).
    fake_anthropic.script(*(Reply(text="ok", delay=0.8) for _ in range(3)))
    backend = _backend(tmp_path, fake_anthropic)
    try:
        sessions = await _sessions(backend, 3)
        started = time.monotonic()
        results = await _turns(sessions)
        elapsed = time.monotonic() - started
    finally:
        await backend.aclose()
    assert [r.response for r in results] == ["ok"] * 3
    # Three turns sent at once, two answered at a time: two rounds of 0.8 s.
    assert fake_anthropic.most_in_flight == 2
    assert elapsed >= 1.6
    assert _limiter(fake_anthropic).window.ceiling == 2


async def test_parallel_turns_against_a_rate_limit_are_paced_not_hammered(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    fake_anthropic.faults = FaultPlan(per_second=4, burst=1)
    # Five turns: more than the window's 4 and the limit's 4 a second, so both show (each
    # turn is a CLI process).
    fake_anthropic.script(*(Reply(text="ok", delay=0.3) for _ in range(5)))
    backend = _backend(tmp_path, fake_anthropic)
    try:
        sessions = await _sessions(backend, 5)
        results = await _turns(sessions)
    finally:
        await backend.aclose()
    assert [r.response for r in results] == ["ok"] * 5
    seen = fake_anthropic.faults.seen
    counts = _limiter(fake_anthropic).counts
    # The limit was met (429s), and each refusal was retried once by the relay, after its
    # Retry-After — none by the CLI, none errored the turn; the window (4 to start with,
    # halved by a 429) kept the five turns from all being in flight at once. (How few 429s a
    # long run gets is measured at scale for the other backend: bench/long_run_faults.py.)
    assert seen["429-limit"] >= 1 and counts.limited == seen["429-limit"]
    assert counts.retries == seen["429-limit"]
    assert seen["requests"] == 5 + seen["429-limit"], seen
    assert fake_anthropic.most_in_flight <= 4


async def test_judges_and_the_agent_share_the_endpoints_limiter(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    fake_anthropic.script(Reply(text="ok"))
    backend = _backend(tmp_path, fake_anthropic)
    try:
        session = await backend.create_session()
        await session.send("q0")
    finally:
        await backend.aclose()
    limiter = _limiter(fake_anthropic)
    agent_requests = limiter.counts.requests
    fake_anthropic.script(Reply(text='{"score": 1}'))
    judge_model = LLMProvider.model_validate(
        {"provider": "anthropic", "name": MODEL, "endpoint": fake_anthropic.base_url}
    )
    judge = JudgeTransport(judge_model, {"ANTHROPIC_API_KEY": "k"})
    try:
        await judge.complete("judge this", None, "verdict", timeout=10)
    finally:
        await judge.aclose()
    assert agent_requests >= 1
    assert limiter.counts.requests == agent_requests + 1
