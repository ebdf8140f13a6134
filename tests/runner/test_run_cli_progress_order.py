"""`holodeck-lsp run`'s progress lines come in turn order within a case, and case after case
at `--parallel 1`, although judged turns are graded when their judge answers: the fake judge
(tests/fakes/judge_server.py) answers turn 0's verdict last, after the later turns and the
next case have been sent and judged."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.fakes.judge_server import FakeJudgeServer
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.runner.test_run_cli_live import API_KEY, child_env, finish, start

pytestmark = pytest.mark.slow

AGENT = """\
name: ordered
model: {{provider: openai, name: gpt-4o-mini, endpoint: "{agent}"}}
instructions: {{inline: "Answer with the number only."}}
evaluations:
  model: {{provider: openai, name: judge-1, endpoint: "{judge}"}}
  metrics:
    - type: geval
      name: Direct
      criteria: "The answer states the number without hedging."
      evaluation_params: [input, actual_output]
test_cases:
  - name: first
    turns:
      - input: "Revenue in SLOW-2009?"
      - input: "And in 2008?"
      - input: "And in 2007?"
  - name: second
    turns:
      - input: "Costs in 2009?"
      - input: "And in 2008?"
"""
LINE = re.compile(r"^\[(\d+)/2\] (\w+) turn (\d+) [✓✗] \((\d+)/(\d+)\)$")
CASE_LINE = re.compile(r"^\[(\d+)/2\] (\w+) (PASSED|FAILED) ")


async def progress_lines(tmp_path: Path, parallel: int) -> list[str]:
    env = child_env(tmp_path, OPENAI_API_KEY=API_KEY)
    async with FakeOpenAIServer() as agent, FakeJudgeServer() as judge:
        agent.script(*(Reply(text=str(n)) for n in (206588, 190000, 180000, 25587, 24000)))
        # Turn 0 of `first` is judged last: after its turns 1, 2 and all of `second`.
        judge.slow = {"SLOW-2009": 2.0}
        path = tmp_path / "agent.yaml"
        path.write_text(
            AGENT.format(agent=agent.base_url + "/v1", judge=judge.base_url + "/v1"), "utf-8"
        )
        proc = await start(
            [str(path), "--parallel", str(parallel), "--no-save", "--color", "never"], env, tmp_path
        )
        # Importing Semantic Kernel and deepeval takes most of it on a busy 2-core machine.
        done = await finish(proc, timeout=120)
    assert done.status == 0, done.err
    return [line for line in done.out.splitlines() if LINE.match(line) or CASE_LINE.match(line)]


def turn_order(lines: list[str]) -> dict[str, list[tuple[int, int]]]:
    """case -> [(turn index, the `(n/N)` counter)] in the order printed."""
    found: dict[str, list[tuple[int, int]]] = {}
    for line in lines:
        match = LINE.match(line)
        if match:
            found.setdefault(match[2], []).append((int(match[3]), int(match[4])))
    return found


async def test_parallel_one_shows_each_case_whole_in_turn_order(tmp_path: Path) -> None:
    lines = await progress_lines(tmp_path, parallel=1)
    assert turn_order(lines) == {"first": [(0, 1), (1, 2), (2, 3)], "second": [(0, 1), (1, 2)]}
    cases = [(LINE.match(line) or CASE_LINE.match(line))[2] for line in lines]  # type: ignore[index]
    # `first` ends (its case line) before `second` shows anything.
    assert cases == ["first"] * 4 + ["second"] * 3, lines
    assert CASE_LINE.match(lines[3]) and CASE_LINE.match(lines[6])


async def test_parallel_cases_may_interleave_but_turns_stay_in_order(tmp_path: Path) -> None:
    lines = await progress_lines(tmp_path, parallel=2)
    assert turn_order(lines) == {"first": [(0, 1), (1, 2), (2, 3)], "second": [(0, 1), (1, 2)]}
    # `second` is not held back behind `first`'s slow judge when two cases run at once.
    names = [match[2] for line in lines if (match := CASE_LINE.match(line))]
    assert names == ["second", "first"]
