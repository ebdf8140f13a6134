"""SC-010: one three-turn case, with a ground truth and an expected tool call on every turn,
passes end to end on both backends — Semantic Kernel (openai) and the Claude Agent SDK — with
identical per-turn pass/fail and per-turn token usage captured.

Both run the real SDKs and the real function tools through the real executor; only the model
is a fake API server on 127.0.0.1, scripted with the same conversation in each protocol.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.runner.backends.create import create_backend
from holodeck_lsp.runner.execution.executor import run_suite
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestReport
from tests.fakes import anthropic_server as anthropic
from tests.fakes import openai_server as openai
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer

TOOLS = '''\
def subtract(a: float, b: float) -> float:
    """Return a minus b."""
    return a - b


def divide(a: float, b: float) -> float:
    """Return a divided by b."""
    return a / b
'''

SUITE = """\
instructions: {inline: "Answer with the number only. Use the tools for arithmetic."}
tools:
  - {name: subtract, type: function, description: "a minus b", file: tools.py, function: subtract}
  - {name: divide, type: function, description: "a divided by b", file: tools.py, function: divide}
evaluations:
  metrics:
    - {type: standard, metric: numeric, absolute_tolerance: 0.001, accept_percent: true}
test_cases:
  - name: cash-flow-change
    turns:
      - input: "What is 206588 minus 181001?"
        ground_truth: "25587"
        expected_tools: [{name: subtract, args: {a: {fuzzy: "206588"}, b: 181001}}]
      - input: "And that divided by 181001?"
        ground_truth: "0.14136"
        expected_tools: [{name: divide, args: {a: 25587, b: {regex: "181001(\\\\.0+)?"}}}]
      - input: "What is 100 minus 85.9?"
        ground_truth: "14.1"
        expected_tools: [subtract]
"""

#: Per turn: the tool call the model makes, and its final answer.
CONVERSATION = [
    ("subtract", {"a": 206588, "b": 181001}, "25587"),
    ("divide", {"a": 25587, "b": 181001}, "0.14136"),
    ("subtract", {"a": 100, "b": 85.9}, "14.1"),
]


def load(tmp_path: Path, model: str) -> Agent:
    (tmp_path / "tools.py").write_text(TOOLS)
    text = f"name: sc010\nmodel: {model}\n" + SUITE
    result = load_agent_text(text, tmp_path / "agent.yaml", LoadOptions(home=tmp_path / "h"))
    assert result.agent is not None, [d.message for d in result.diagnostics]
    return result.agent


def verdicts(report: TestReport) -> list[tuple[bool, bool | None]]:
    (case,) = report.results
    return [(turn.passed, turn.tools_matched) for turn in case.turns or []]


async def run_on_openai(tmp_path: Path, server: FakeOpenAIServer) -> TestReport:
    for tool, args, answer in CONVERSATION:
        server.script(
            openai.Reply(
                tool_calls=[openai.ToolCall(f"tools-{tool}", args)],
                usage=openai.Usage(prompt_tokens=40, completion_tokens=8),
            ),
            openai.Reply(text=answer, usage=openai.Usage(prompt_tokens=60, completion_tokens=3)),
        )
    agent = load(
        tmp_path, f'{{provider: openai, name: gpt-4o-mini, endpoint: "{server.base_url}"}}'
    )
    backend = create_backend(agent, tmp_path, env={"OPENAI_API_KEY": "sk-test"})
    try:
        return await run_suite(agent, tmp_path, backend)
    finally:
        await backend.aclose()


async def run_on_claude(tmp_path: Path, server: FakeAnthropicServer) -> TestReport:
    for tool, args, answer in CONVERSATION:
        server.script(
            anthropic.Reply(
                tool_uses=[anthropic.ToolUse(f"mcp__tools__{tool}", args)],
                usage=anthropic.Usage(input_tokens=40, output_tokens=8),
            ),
            anthropic.Reply(text=answer, usage=anthropic.Usage(input_tokens=60, output_tokens=3)),
        )
    agent = load(tmp_path, "{provider: anthropic, name: claude-sonnet-4-5}")
    home = tmp_path / "home"
    home.mkdir()
    env = {
        "PATH": "/usr/bin:/bin",
        "HOME": str(home),
        "ANTHROPIC_API_KEY": "sk-ant-test",
        "ANTHROPIC_BASE_URL": server.base_url,
        "CLAUDE_CODE_MAX_RETRIES": "0",
    }
    backend = create_backend(agent, tmp_path, env=env)
    try:
        return await run_suite(agent, tmp_path, backend)
    finally:
        await backend.aclose()


@pytest.mark.slow
async def test_same_case_passes_on_both_backends_turn_by_turn(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_anthropic: FakeAnthropicServer
) -> None:
    (tmp_path / "sk").mkdir()
    (tmp_path / "claude").mkdir()
    on_sk = await run_on_openai(tmp_path / "sk", fake_openai)
    on_claude = await run_on_claude(tmp_path / "claude", fake_anthropic)

    assert verdicts(on_sk) == [(True, True)] * 3
    assert verdicts(on_claude) == verdicts(on_sk)
    for report in (on_sk, on_claude):
        (case,) = report.results
        assert case.passed
        for turn, (tool, args, answer) in zip(case.turns or [], CONVERSATION, strict=True):
            assert turn.response == answer
            (call,) = turn.tool_invocations
            assert tool in call.name and call.args == args
            assert call.result is not None  # the real function ran
            assert turn.token_usage is not None
            assert turn.token_usage.prompt_tokens == 100
            assert turn.token_usage.completion_tokens == 11
        assert case.token_usage is not None and case.token_usage.prompt_tokens == 300
