"""Any rate limiter, not only a token bucket: the Semantic Kernel backend against the loopback
OpenAI fake limited by each shape of tests/fakes/limiter_shapes.py (token bucket, fixed
window, sliding window that counts refused requests too), its 429s saying so in each header
style (exact `Retry-After`, always `Retry-After: 1` + `retry-after-ms: 1000`, only
`x-ratelimit-reset-requests`, a bare 429), plus 30 % random recoverable faults (at most 2 in a
row for one request). Scaled down from issue 36's bench (bench/long_run_faults.py): no verdict
changed, no turn errored, under 0.5 429s per request."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.runner.agent_code.function_tools import load_function_tools
from holodeck_lsp.runner.backends.semantic_kernel_backend import SemanticKernelBackend
from holodeck_lsp.runner.execution.executor import RunOptions, run_suite
from holodeck_lsp.runner.limits import registry
from tests.fakes.faults import FaultPlan
from tests.fakes.limiter_shapes import HeaderStyle, LimiterShape, ShapeName
from tests.fakes.openai_server import FakeOpenAIServer, Reply

pytestmark = pytest.mark.slow  # a few seconds each: the limit's bound plus 1 s retries


def _suite(server: FakeOpenAIServer, cases: int) -> str:
    lines = [
        "name: shapes",
        f'model: {{provider: openai, name: gpt-fake, endpoint: "{server.base_url}/v1"}}',
        'instructions: {inline: "Answer with the number."}',
        "evaluations:",
        "  metrics:",
        "    - {type: standard, metric: equality}",
        "test_cases:",
    ]
    for n in range(cases):
        lines += [f"  - name: c{n}", "    turns:"]
        lines += [f'      - {{input: "{asked}{n}", ground_truth: "{n}"}}' for asked in "nm"]
    return "\n".join(lines) + "\n"


def _answer(body: dict[str, object]) -> Reply:
    """Case n answers n, except every fifth case, whose second turn is answered wrong: the
    verdicts mix passes and failures, and a changed verdict shows."""
    messages = body["messages"]
    assert isinstance(messages, list)
    asked = str(messages[-1]["content"])
    number = int(asked[1:])
    wrong = asked.startswith("m") and number % 5 == 0
    return Reply(text=str(number + 1 if wrong else number), delay=0.02)


@pytest.mark.parametrize(
    ("shape", "header_style", "limit", "window", "cases"),
    [
        # 40 requests a second (8 per 0.2 s; the bucket: 1 at a time), 16 two-turn cases.
        ("bucket", "exact", 8, 0.2, 16),
        ("fixed", "reset", 8, 0.2, 16),
        ("fixed", "none", 8, 0.2, 16),
        ("sliding", "none", 8, 0.2, 16),
        # Issue 36's limiter at its size (its 429s ask 1 s whatever the window's state,
        # so its window is kept a second long): 20 a second, 60 two-turn cases.
        ("sliding", "fixed", 20, 1.0, 60),
    ],
)
async def test_every_limiter_shape_leaves_the_verdicts_alone(
    tmp_path: Path,
    fake_openai: FakeOpenAIServer,
    shape: ShapeName,
    header_style: HeaderStyle,
    limit: int,
    window: float,
    cases: int,
) -> None:
    registry.configure(registry.LimitSettings())  # fresh limiters for this test
    fake_openai.responder = _answer
    fake_openai.faults = FaultPlan(
        limiter=LimiterShape(shape, limit=limit, window=window),
        header_style=header_style,
        random_rate=0.3,
        kinds=("429", "503", "drop"),
        max_in_a_row=2,
        seed=36,
    )
    loaded = load_agent_text(
        _suite(fake_openai, cases), tmp_path / "agent.yaml", LoadOptions(home=tmp_path, env={})
    )
    assert loaded.agent is not None, [d.message for d in loaded.diagnostics]
    agent = loaded.agent
    backend = SemanticKernelBackend(
        agent, load_function_tools(agent, tmp_path), {"OPENAI_API_KEY": "k"}, max_retries=None
    )
    try:
        report = await run_suite(agent, tmp_path, backend, options=RunOptions(parallel=32))
    finally:
        await backend.aclose()
    seen = fake_openai.faults.seen
    assert report.summary.errored == 0, (report.summary, seen)
    verdicts = {result.test_name: result.passed for result in report.results}
    assert verdicts == {f"c{n}": n % 5 != 0 for n in range(cases)}, [
        (r.test_name, r.errors, [t.errors for t in r.turns]) for r in report.results if not r.passed
    ]
    refused = seen["429-limit"] + seen["429"]
    assert refused / seen["requests"] < 0.5, seen
