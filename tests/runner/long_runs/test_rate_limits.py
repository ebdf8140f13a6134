"""Rate limits honoured: the Semantic Kernel backend and the judges against the loopback
OpenAI fake with provider weather (tests/fakes/faults.py) — retries within the turn's
budget, `Retry-After` waited, few 429s against a rate-limiting fake at high parallelism,
judge requests through the same limiter as the agent's."""

from __future__ import annotations

import time
from pathlib import Path

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.runner.agent_code.function_tools import load_function_tools
from holodeck_lsp.runner.backends.semantic_kernel_backend import SemanticKernelBackend
from holodeck_lsp.runner.execution.executor import RunOptions, run_suite
from holodeck_lsp.runner.judges.transport import JudgeTransport
from holodeck_lsp.runner.limits import registry
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.llm import LLMProvider
from holodeck_lsp.schema.results import TestReport
from tests.fakes.faults import FaultPlan
from tests.fakes.openai_server import FakeOpenAIServer, Reply


def _suite(server: FakeOpenAIServer, cases: int) -> str:
    lines = [
        "name: limited",
        f'model: {{provider: openai, name: gpt-fake, endpoint: "{server.base_url}/v1"}}',
        'instructions: {inline: "Echo."}',
        "evaluations:",
        "  metrics:",
        "    - {type: standard, metric: equality}",
        "test_cases:",
    ]
    lines += [f'  - {{name: c{n}, input: "n{n}", ground_truth: "n{n}"}}' for n in range(cases)]
    return "\n".join(lines) + "\n"


def _echo(body: dict[str, object]) -> Reply:
    messages = body["messages"]
    assert isinstance(messages, list)
    return Reply(text=str(messages[-1]["content"]))


def _agent(tmp_path: Path, server: FakeOpenAIServer, cases: int) -> Agent:
    loaded = load_agent_text(
        _suite(server, cases), tmp_path / "agent.yaml", LoadOptions(home=tmp_path, env={})
    )
    assert loaded.agent is not None, [d.message for d in loaded.diagnostics]
    return loaded.agent


async def _run(
    tmp_path: Path, server: FakeOpenAIServer, cases: int, parallel: int, budget: int | None
) -> TestReport:
    registry.configure(registry.LimitSettings())  # fresh limiters for this test
    agent = _agent(tmp_path, server, cases)
    backend = SemanticKernelBackend(
        agent, load_function_tools(agent, tmp_path), {"OPENAI_API_KEY": "k"}, max_retries=budget
    )
    try:
        return await run_suite(agent, tmp_path, backend, options=RunOptions(parallel=parallel))
    finally:
        await backend.aclose()


async def test_faults_within_the_budget_are_retried_and_retry_after_is_waited(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = _echo
    fake_openai.faults = FaultPlan(scripted=["429", "503", "drop"], retry_after=0.6)
    started = time.monotonic()
    report = await _run(tmp_path, fake_openai, cases=1, parallel=1, budget=3)
    assert time.monotonic() - started >= 0.6  # the 429's Retry-After was honoured
    assert report.summary.passed == 1 and report.summary.errored == 0
    assert fake_openai.faults.seen["requests"] == 4


async def test_a_spent_budget_errors_the_turn(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = _echo
    fake_openai.faults = FaultPlan(scripted=["503"] * 3)
    report = await _run(tmp_path, fake_openai, cases=1, parallel=1, budget=2)
    assert report.summary.errored == 1 and report.summary.failed == 0
    assert fake_openai.faults.seen["requests"] == 3


async def test_high_parallelism_against_a_rate_limit_gets_few_429s(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    def answer(body: dict[str, object]) -> Reply:  # answers take time, as real ones do
        return Reply(text=_echo(body).text, delay=0.1)

    fake_openai.responder = answer
    fake_openai.faults = FaultPlan(per_second=20, burst=2)
    report = await _run(tmp_path, fake_openai, cases=60, parallel=32, budget=None)
    assert report.summary.passed == 60, report.summary
    seen = fake_openai.faults.seen
    assert seen["429-limit"] / seen["requests"] < 0.5, seen


async def test_judge_requests_share_the_agents_limiter(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    registry.configure(registry.LimitSettings(retry_budget=2))
    fake_openai.faults = FaultPlan(scripted=["429"], retry_after=0.05)
    fake_openai.script(Reply(text='{"score": 1}'))
    model = LLMProvider.model_validate(
        {"provider": "openai", "name": "gpt-fake", "endpoint": f"{fake_openai.base_url}/v1"}
    )
    judge = JudgeTransport(model, {"OPENAI_API_KEY": "k"})
    try:
        reply = await judge.complete("judge this", None, "verdict", timeout=10)
    finally:
        await judge.aclose()
    assert reply.text == '{"score": 1}'
    limiter = registry.limiter_for(f"{fake_openai.base_url}/v1", "openai:gpt-fake")
    assert limiter.counts.requests == 2 and limiter.counts.limited == 1
