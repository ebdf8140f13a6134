"""A judge the provider could not answer is errored, not a wrong answer: a judged metric whose
judge met a 503 or a 429 beyond the retry budget leaves its turn errored (counted apart,
exit 4) when nothing else failed, and a recording replays it as errored; a turn that also
failed on its own merits (a wrong tool argument) stays failed.

Real parts: `holodeck-lsp run` as a process, the Semantic Kernel backend against the
loopback OpenAI fake, the coherence metric judged against the loopback judge fake
(tests/fakes/judge_server.py) answering HTTP errors, the real limiter and retry budget."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.exit_codes import EXIT_ERRORED, EXIT_TEST_FAILED
from tests.fakes.judge_server import FakeJudgeServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.runner.test_run_cli_live import (
    API_KEY,
    TOOLS,
    child_env,
    read_report,
    run_cli,
    tool_turn,
)

pytestmark = pytest.mark.slow

JUDGE_KEY = "sk-judge-errored-5c2e8a1f"
#: More refusals than the retry budget (`--retry-budget 1`, or 0) can spend.
REFUSALS = 20

AGENT = """\
name: judged-subtraction
model: {{provider: openai, name: gpt-4o-mini, endpoint: "{agent}"}}
instructions: {{inline: "Answer with the number only. Use the tools for arithmetic."}}
tools:
  - {{name: subtract, type: function, description: "a minus b", file: tools.py,
      function: subtract}}
evaluations:
  model: {{provider: openai, name: judge-1, endpoint: "{judge}", api_key: "${{JUDGE_KEY}}"}}
  metrics:
    - {{type: standard, metric: coherence}}
test_cases:
  - name: difference
    turns:
      - input: "What is 50 minus 8?"
        expected_tools: [{{name: subtract, args: {{a: 50, b: 8}}}}]
"""


def _write(folder: Path, agent: FakeOpenAIServer, judge: FakeJudgeServer) -> Path:
    (folder / "tools.py").write_text(TOOLS, encoding="utf-8")
    path = folder / "agent.yaml"
    text = AGENT.format(agent=agent.base_url + "/v1", judge=judge.base_url + "/v1")
    path.write_text(text, encoding="utf-8")
    return path


def _env(tmp_path: Path) -> dict[str, str]:
    return child_env(tmp_path, OPENAI_API_KEY=API_KEY, JUDGE_KEY=JUDGE_KEY)


async def test_a_judge_503_beyond_the_budget_is_errored_and_replays_so(tmp_path: Path) -> None:
    cassette, first = tmp_path / "run.json", tmp_path / "first.json"
    async with FakeOpenAIServer() as agent, FakeJudgeServer() as judge:
        agent.script(*tool_turn(50, 8, "42"))
        judge.fail_next(503, times=REFUSALS)
        path = _write(tmp_path, agent, judge)
        done = await run_cli(
            [
                str(path),
                "--retry-budget",
                "1",
                "--record",
                str(cassette),
                "--report-json",
                str(first),
            ],
            _env(tmp_path),
            tmp_path,
        )
        assert len(judge.requests) >= 2  # the budget's retry was spent on the judge
    assert done.status == EXIT_ERRORED, done.texts()
    assert "0 passed, 0 failed, 1 errored of 1 test cases" in done.out
    report = read_report(first)
    [case] = report.results
    assert case.errored and not case.passed
    assert case.turns is not None
    [turn] = case.turns
    assert turn.errored and not turn.passed and turn.tools_matched is True
    [metric] = turn.metric_results
    assert metric.errored and metric.error is not None and "HTTP 503" in metric.error
    assert any("coherence" in e and "HTTP 503" in e for e in turn.errors), turn.errors
    summary = report.summary
    assert (summary.passed, summary.failed, summary.errored) == (0, 0, 1)
    assert summary.errored_turns == 1
    # A judge that was not heard gave no score of 0.
    assert "coherence" not in summary.average_scores

    # Replayed with both servers gone: the recorded provider error is errored again.
    replayed = tmp_path / "replayed.json"
    done = await run_cli(
        [str(path), "--replay", str(cassette), "--report-json", str(replayed)],
        _env(tmp_path),
        tmp_path,
    )
    assert done.status == EXIT_ERRORED, done.texts()
    [again] = read_report(replayed).results
    assert again.errored and again.turns is not None and again.turns[0].metric_results[0].errored


async def test_a_wrong_tool_argument_fails_beside_a_judge_429(tmp_path: Path) -> None:
    report_path = tmp_path / "report.json"
    async with FakeOpenAIServer() as agent, FakeJudgeServer() as judge:
        agent.script(*tool_turn(50, 9, "41"))
        judge.fail_next(429, times=REFUSALS)
        path = _write(tmp_path, agent, judge)
        # No retry budget: the judge's first 429 is already beyond it. With a budget, bare
        # 429s in a row shut the endpoint's gate and the limit's refusals are retried free
        # for LIMIT_ALLOWANCE_SECONDS (10 s) before the budget is drawn on — a wait that
        # shows nothing more here; test_limit_allowance.py checks that path in-process.
        args = [str(path), "--retry-budget", "0", "--report-json", str(report_path)]
        done = await run_cli(args, _env(tmp_path), tmp_path)
    assert done.status == EXIT_TEST_FAILED, done.texts()
    assert "0 passed, 1 failed of 1 test cases" in done.out
    [case] = read_report(report_path).results
    assert not case.errored and not case.passed
    assert case.turns is not None
    [turn] = case.turns
    # The wrong argument is a verdict; the judge's 429 stays marked on its metric only.
    assert turn.tools_matched is False and not turn.errored
    [metric] = turn.metric_results
    assert metric.errored and metric.error is not None and "HTTP 429" in metric.error
