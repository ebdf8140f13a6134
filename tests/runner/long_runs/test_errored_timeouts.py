"""A timeout is errored when the provider caused it, a failure when the model did (issue 25):
an HTTP call the provider never answered (the agent sets no `llm_timeout`) is errored; an
`llm_timeout` the turn spent waiting out the provider's refusals is errored; an `llm_timeout`
the model spent answering slowly stays upstream's failure.

Real parts: the Semantic Kernel backend against the loopback OpenAI fake with injected
faults, the real executor and limiter."""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.runner.agent_code.function_tools import load_function_tools
from holodeck_lsp.runner.backends.semantic_kernel_backend import SemanticKernelBackend
from holodeck_lsp.runner.execution.executor import RunOptions, run_suite
from holodeck_lsp.schema.results import TestReport
from tests.fakes.faults import FaultPlan
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SUITE = """\
name: weather
model: {{provider: openai, name: gpt-fake, endpoint: "{endpoint}"}}
instructions: {{inline: "Answer."}}
{execution}
evaluations:
  metrics:
    - type: standard
      metric: equality
test_cases:
  - {{name: only, input: "one", ground_truth: "1"}}
"""


async def _run(
    tmp_path: Path,
    server: FakeOpenAIServer,
    *,
    execution: str = "",
    env: dict[str, str] | None = None,
    retries: int = 0,
) -> TestReport:
    text = SUITE.format(endpoint=f"{server.base_url}/v1", execution=execution)
    loaded = load_agent_text(text, tmp_path / "agent.yaml", LoadOptions(home=tmp_path, env={}))
    agent = loaded.agent
    assert agent is not None, [d.message for d in loaded.diagnostics]
    backend = SemanticKernelBackend(
        agent,
        load_function_tools(agent, tmp_path),
        {"OPENAI_API_KEY": "sk-x", **(env or {})},
        max_retries=retries,
    )
    try:
        options = RunOptions.for_agent(agent, env={})  # the agent's llm_timeout
        return await run_suite(agent, tmp_path, backend, options=options)
    finally:
        await backend.aclose()


async def test_an_http_timeout_without_llm_timeout_is_errored(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = lambda body: Reply(text="1")
    fake_openai.faults = FaultPlan(scripted=["slow"], slow_seconds=1.5)
    report = await _run(tmp_path, fake_openai, env={"HOLODECK_HTTP_TIMEOUT": "0.3"})
    result = report.results[0]
    assert result.errored and not result.passed, result.errors
    assert "did not answer within the HTTP timeout (0.3s)" in result.errors[0]
    assert report.summary.errored == 1 and report.summary.failed == 0


async def test_an_http_timeout_under_llm_timeout_stays_a_failure(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    # The client's timeout is then llm_timeout: the case's own verdict, whichever fires.
    fake_openai.responder = lambda body: Reply(text="1")
    fake_openai.faults = FaultPlan(scripted=["slow"], slow_seconds=1.5)
    report = await _run(tmp_path, fake_openai, execution="execution: {llm_timeout: 1}")
    result = report.results[0]
    assert not result.errored and not result.passed
    assert report.summary.failed == 1 and report.summary.errored == 0


async def test_an_llm_timeout_spent_on_provider_refusals_is_errored(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    # Three 429s of Retry-After 1.5 s: the answer would come after 4.5 s, past llm_timeout
    # (not a whole second: a `Retry-After: 1` is waited somewhere within its second).
    fake_openai.responder = lambda body: Reply(text="1")
    fake_openai.faults = FaultPlan(scripted=["429", "429", "429"], retry_after=1.5)
    report = await _run(tmp_path, fake_openai, execution="execution: {llm_timeout: 2}", retries=8)
    result = report.results[0]
    assert result.errored and not result.passed, result.errors
    message = result.errors[0]
    assert message.startswith("timed out after 2s, ") and "of it waiting on the provider" in message
    assert "2 provider refusals" in message
    assert report.summary.errored == 1 and report.summary.failed == 0


async def test_an_llm_timeout_spent_on_a_slow_model_stays_a_failure(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    # No refusal: the model had all of its time (upstream: hitting llm_timeout fails).
    fake_openai.responder = lambda body: Reply(text="1")
    fake_openai.faults = FaultPlan(scripted=["slow"], slow_seconds=2.5)
    report = await _run(tmp_path, fake_openai, execution="execution: {llm_timeout: 1}", retries=8)
    result = report.results[0]
    assert not result.errored and not result.passed
    assert result.errors == ["timed out after 1s"]
    assert report.summary.failed == 1 and report.summary.errored == 0
