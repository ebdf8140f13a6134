"""`holodeck-lsp run`'s progress on a simulated-user case, as a real process: the conversation
has no fixed length, so each turn's line counts it against its most turns (`(2/≤4)`) and the
totals bar's total is that bound until the case ends, then the turns it took — never more
turns done than the total, and the total at the end equal to the turns run
(docs/simulated-users.md "Progress while the conversation runs")."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.simulated_user import anthropic_user
from tests.runner.simulation.test_simulated_run_cli import AGENT_REPLIES, write_agent
from tests.runner.test_run_cli_live import API_KEY, child_env, run_cli

pytestmark = pytest.mark.slow

USER = ("My order is W2378156. What is left to pay?", "Thanks! ###STOP###")


async def test_turn_lines_count_against_the_bound_and_the_totals_end_at_the_turns_run(
    tmp_path: Path, fake_openai: FakeOpenAIServer, fake_anthropic: FakeAnthropicServer
) -> None:
    # One scripted opening turn and at most three simulated ones: planned at 4 turns; the
    # simulated user stops after one message, so the conversation takes 2.
    agent = write_agent(tmp_path / "suite", fake_openai.base_url, fake_anthropic.base_url)
    env = child_env(tmp_path, OPENAI_API_KEY=API_KEY, ANTHROPIC_API_KEY="sk-ant-test-7e2a91")

    fake_openai.script(*AGENT_REPLIES)
    fake_anthropic.script(*anthropic_user(*USER))
    per_case = await run_cli([str(agent), "--no-save", "--progress", "cases"], env, tmp_path)
    assert per_case.status == 0, per_case.texts()
    lines = per_case.out.splitlines()
    assert "[1/1] balance turn 0 ✓ (1/≤4)" in lines, per_case.out
    assert "[1/1] balance turn 1 ✓ (2/≤4)" in lines, per_case.out
    assert "[1/1] balance PASSED (2/2 turns passed)" in lines, per_case.out

    fake_openai.script(*AGENT_REPLIES)
    fake_anthropic.script(*anthropic_user(*USER))
    totals = await run_cli([str(agent), "--no-save", "--progress", "totals"], env, tmp_path)
    assert totals.status == 0, totals.texts()
    counts = [
        (int(done), bound == "≤", int(total))
        for done, bound, total in re.findall(r"(\d+)/(≤?)(\d+) turns ·", totals.out)
    ]
    # The first event prints the totals at once (the bound, marked as one); the last line
    # (after the run) has the total tightened to the turns the conversation took.
    assert counts[0] == (0, True, 4), totals.out
    assert counts[-1] == (2, False, 2), totals.out
    assert all(done <= total for done, _, total in counts), totals.out
