"""The `at_end` checks of a simulated conversation through `holodeck-lsp run` as a process: a
code grader called once, inside the case's tool state (what a stateful function tool left in
the case's CaseScope) with every turn's tool calls; a judged metric over the whole transcript,
recorded, reused on `--replay` (no judge asked) and asked again with `--replay --rejudge`. On a
replay no tool runs, so a state check rebuilds the state from the recorded calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.judge_server import FakeJudgeServer
from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCall
from tests.fakes.simulated_user import anthropic_user
from tests.runner.test_run_cli_live import API_KEY, child_env, read_report, run_cli

pytestmark = pytest.mark.slow

TOOLS = '''\
import importlib


def pay(amount: float) -> str:
    """Pay `amount` on the order."""
    scopes = importlib.import_module("holodeck_lsp.runner.agent_code.case_scope")
    scope = scopes.current_case()
    with scope.lock:
        scope.state["paid"] = scope.state.get("paid", 0) + amount
    return "paid"
'''

GRADERS = """\
import importlib
from types import SimpleNamespace


def paid_in_full(ctx):
    # Live, the tools ran in this case's scope; on a replay they did not (their recorded
    # results are handed back), so the state is rebuilt from the calls, as BFCL's grader does.
    scope = importlib.import_module("holodeck_lsp.runner.agent_code.case_scope").current_case()
    calls = [call.name for call in ctx.tool_invocations]
    if scope is not None and "paid" in scope.state:
        paid, source = scope.state["paid"], "scope"
    else:
        paid, source = sum(c.args["amount"] for c in ctx.tool_invocations), "calls"
    return SimpleNamespace(score=1.0 if paid == 65 else 0.0, passed=paid == 65, reason=None,
                           details={"paid": paid, "calls": calls, "from": source})
"""

AGENT = """\
name: shop
model: {{provider: openai, name: gpt-4o-mini, endpoint: "{agent}"}}
instructions: {{inline: "Help the customer."}}
tools:
  - {{name: pay, type: function, description: "pay an amount", file: tools.py, function: pay}}
test_cases:
  - name: pay
    simulated_user:
      instructions: "You are Yusuf and you want to pay the 65 dollars left on your order."
      model: {{provider: anthropic, name: claude-haiku-4-5, endpoint: "{user}"}}
      max_turns: 3
      at_end:
        expected_tools: [pay]
        evaluations:
          - {{type: code, grader: "graders:paid_in_full"}}
          - type: standard
            metric: coherence
            model: {{provider: openai, name: judge-1, endpoint: "{judge}", api_key: "sk-j-1e2d"}}
"""


async def test_at_end_state_and_judges_recorded_replayed_and_rejudged(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_anthropic: FakeAnthropicServer
) -> None:
    folder = tmp_path / "suite"
    folder.mkdir()
    (folder / "tools.py").write_text(TOOLS, encoding="utf-8")
    (folder / "graders.py").write_text(GRADERS, encoding="utf-8")
    async with FakeJudgeServer() as judge:
        agent = folder / "agent.yaml"
        text = AGENT.format(
            agent=fake_openai.base_url, user=fake_anthropic.base_url, judge=judge.base_url
        )
        agent.write_text(text, encoding="utf-8")
        fake_anthropic.script(
            *anthropic_user("Hi, I want to pay what is left on my order.", "Great ###STOP###")
        )
        fake_openai.script(
            Reply(tool_calls=[ToolCall("tools-pay", {"amount": 40})]),
            Reply(tool_calls=[ToolCall("tools-pay", {"amount": 25})]),
            Reply(text="Done: you paid 65 dollars."),
        )
        env = child_env(tmp_path, OPENAI_API_KEY=API_KEY, ANTHROPIC_API_KEY="sk-ant-sim-7a1c")
        report_path, cassette = tmp_path / "report.json", tmp_path / "cassette.json"
        args = [str(agent), "--record", str(cassette), "--report-json", str(report_path)]
        done = await run_cli(args, env, tmp_path)
        assert done.status == 0, done.out + done.err
        [result] = read_report(report_path).results
        assert result.simulation is not None and result.simulation.at_end is not None
        at_end = result.simulation.at_end
        by_name = {m.metric_name: m for m in at_end.metric_results}
        assert by_name["paid_in_full"].passed and by_name["paid_in_full"].details == {
            "paid": 65,
            "calls": ["tools-pay", "tools-pay"],
            "from": "scope",
        }
        assert by_name["coherence"].passed is True
        assert "Agent: Done: you paid 65 dollars." in str(judge.prompts())
        assert at_end.tools_matched is True and result.passed
        asked = len(judge.requests)

        replay_path = tmp_path / "replay.json"
        replay = [str(agent), "--replay", str(cassette), "--report-json", str(replay_path)]
        done = await run_cli(replay, env, tmp_path)
        assert done.status == 0, done.out + done.err
        assert len(judge.requests) == asked  # the recorded verdict, reused
        [again] = read_report(replay_path).results
        assert again.passed and again.simulation is not None
        assert again.simulation.at_end is not None
        replayed = {m.metric_name: m for m in again.simulation.at_end.metric_results}
        assert replayed["coherence"].passed is True and replayed["paid_in_full"].passed
        assert (replayed["paid_in_full"].details or {})["from"] == "calls"  # no tool ran

        done = await run_cli([*replay, "--rejudge"], env, tmp_path)
        assert done.status == 0, done.out + done.err
        assert len(judge.requests) > asked  # judged again
