"""The first line of `holodeck-lsp run` on a simulated-user case: its conversation has no
fixed length, so the line announces the most turns it can take (scripted opening turns plus
`max_turns`), "up to N turns (simulated users)", not just its scripted turns."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.commands.run.turn_counts import turns_phrase
from holodeck_lsp.runner.selection import Selection, plan_cases
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.fakes.simulated_user import anthropic_user
from tests.runner.simulation.test_simulated_run_cli import write_agent
from tests.runner.test_run_cli_live import API_KEY, child_env, run_cli


@pytest.mark.slow
async def test_the_first_line_says_up_to_how_many_turns(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_anthropic: FakeAnthropicServer
) -> None:
    fake_openai.script(Reply(text="What is your order number?"), Reply(text="It is paid."))
    fake_anthropic.script(*anthropic_user("Order W2378156.", "Thanks! ###STOP###"))
    agent = write_agent(
        tmp_path / "suite", fake_openai.base_url, fake_anthropic.base_url, (("balance", 10),)
    )
    env = child_env(tmp_path, OPENAI_API_KEY=API_KEY, ANTHROPIC_API_KEY="sk-ant-test-41c9e2")
    done = await run_cli([str(agent), "--no-save"], env, tmp_path)
    first = done.out.splitlines()[0]
    # One scripted opening turn and at most ten the simulated user writes.
    assert ": 1 case, up to 11 turns (simulated users) — openai gpt-4o-mini" in first, done.out
    # The conversation itself was two turns long: the simulator stopped after one message.
    assert len(fake_openai.chat_requests) == 2


SUITE = """\
name: mixed
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "Help."}
test_cases:
  - name: scripted
    turns:
      - input: "one"
      - input: "two"
  - name: single
    input: "three"
  - name: simulated
    simulated_user:
      instructions: "You want a refund."
      model: {provider: anthropic, name: claude-haiku-4-5}
      max_turns: 4
"""


def _phrase(selection: Selection | None = None) -> str:
    loaded = load_agent_text(SUITE, Path("agent.yaml"), LoadOptions(global_config=False))
    assert loaded.agent is not None
    return turns_phrase(plan_cases(loaded.agent, selection))


def test_scripted_turns_are_counted_as_before_and_simulated_ones_at_most() -> None:
    # 2 + 1 scripted turns, and a simulated user with no opening turns writes at most 4.
    assert _phrase() == "up to 7 turns (simulated users)"
    assert _phrase(Selection(cases=("scripted", "single"))) == "3 turns"
    assert _phrase(Selection(cases=("single",))) == "1 turn"
