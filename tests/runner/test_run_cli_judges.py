"""`holodeck-lsp run` as a real process with LLM-judged metrics: the agent answers through
Semantic Kernel from the fake OpenAI server, a G-Eval metric and a RAG metric are judged by
deepeval against the fake judge (tests/fakes/judge_server.py); recorded, replayed with no
server at all, stale after an edit of the criteria, and judged again with `--rejudge`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holodeck_lsp.runner.cassette import comparable
from tests.fakes.judge_server import FakeJudgeServer
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.runner.test_run_cli_live import API_KEY, child_env, read_report, run_cli

pytestmark = pytest.mark.slow

JUDGE_KEY = "sk-judge-cli-4b7d1e9a"

AGENT = """\
name: judged
model: {{provider: openai, name: gpt-4o-mini, endpoint: "{agent}"}}
instructions: {{inline: "Answer with the number only."}}
evaluations:
  model: {{provider: openai, name: judge-1, endpoint: "{judge}", api_key: "${{JUDGE_KEY}}"}}
  metrics:
    - type: geval
      name: Direct
      criteria: {criteria}
      evaluation_params: [input, actual_output]
    - type: rag
      metric_type: faithfulness
test_cases:
  - name: revenue
    turns:
      - input: "What was revenue in 2009?"
        retrieval_context: ["Revenue in 2009 was 206588."]
      - input: "And in 2008?"
        retrieval_context: ["Revenue in 2008 was 190000."]
  - name: legacy
    input: "Net change?"
    retrieval_context: ["Net change was 25587."]
"""
CRITERIA = "The answer states the number without hedging."


def write(tmp_path: Path, agent: str, judge: str, criteria: str = CRITERIA) -> Path:
    path = tmp_path / "agent.yaml"
    path.write_text(AGENT.format(agent=agent, judge=judge, criteria=criteria), encoding="utf-8")
    return path


def verdicts(report_path: Path) -> dict[tuple[str, int, str], tuple[bool | None, str | None]]:
    report = read_report(report_path)
    found: dict[tuple[str, int, str], tuple[bool | None, str | None]] = {}
    for case in report.results:
        for turn in case.turns or []:
            for m in turn.metric_results:
                found[(case.test_name or "", turn.turn_index, m.metric_name)] = (m.passed, m.error)
        if case.turns is None:
            for m in case.metric_results:
                found[(case.test_name or "", 0, m.metric_name)] = (m.passed, m.error)
    return found


async def test_record_replay_stale_rejudge(tmp_path: Path) -> None:
    env = child_env(tmp_path, OPENAI_API_KEY=API_KEY, JUDGE_KEY=JUDGE_KEY)
    cassette, first = tmp_path / "run.json", tmp_path / "first.json"
    async with FakeOpenAIServer() as agent, FakeJudgeServer() as judge:
        agent.script(Reply(text="206588"), Reply(text="maybe 190000"), Reply(text="25587"))
        path = write(tmp_path, agent.base_url + "/v1", judge.base_url + "/v1")
        done = await run_cli(
            [str(path), "--record", str(cassette), "--report-json", str(first)], env, tmp_path
        )
        assert done.status == 1, done.err  # the hedged answer fails its G-Eval
        judged = len(judge.requests)
    assert judged > 0
    assert "judge tokens:" in done.out
    got = verdicts(first)
    assert got[("revenue", 0, "Direct")] == (True, None)
    assert got[("revenue", 1, "Direct")] == (False, None)
    assert got[("legacy", 0, "Direct")] == (True, None)
    assert got[("revenue", 0, "faithfulness")] == (True, None)
    recorded = cassette.read_text(encoding="utf-8")
    assert JUDGE_KEY not in recorded and API_KEY not in recorded
    assert json.loads(recorded)["cases"][0]["turns"][0]["judgements"]

    # Replay with both servers gone: the same verdicts from the recording.
    replayed = tmp_path / "replayed.json"
    done = await run_cli(
        [str(path), "--replay", str(cassette), "--report-json", str(replayed)], env, tmp_path
    )
    assert done.status == 1, done.err
    assert "judge tokens:" in done.out and "(recorded; agent:" in done.out

    def strip(report_path: Path) -> dict[str, object]:
        data = comparable(read_report(report_path))
        data.pop("environment", None)
        return data

    assert strip(replayed) == strip(first)

    # New criteria, same answers: stale without a judge, judged again with --rejudge.
    path = write(tmp_path, "http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1", "Short answers.")
    stale = tmp_path / "stale.json"
    done = await run_cli(
        [str(path), "--replay", str(cassette), "--report-json", str(stale)], env, tmp_path
    )
    passed, error = verdicts(stale)[("revenue", 0, "Direct")]
    assert passed is False and error is not None and error.startswith("judge recording is stale")
    assert verdicts(stale)[("revenue", 0, "faithfulness")] == (True, None)
    async with FakeJudgeServer() as judge:
        path = write(tmp_path, "http://127.0.0.1:9/v1", judge.base_url + "/v1", "Short answers.")
        again = tmp_path / "again.json"
        done = await run_cli(
            [str(path), "--replay", str(cassette), "--rejudge", "--report-json", str(again)],
            env,
            tmp_path,
        )
        assert judge.requests, done.err
    assert verdicts(again)[("revenue", 0, "Direct")] == (True, None)
    assert verdicts(again)[("revenue", 1, "Direct")] == (False, None)


async def test_rejudge_needs_a_replay(tmp_path: Path) -> None:
    path = write(tmp_path, "http://127.0.0.1:9/v1", "http://127.0.0.1:9/v1")
    done = await run_cli([str(path), "--rejudge"], child_env(tmp_path), tmp_path)
    assert done.status == 2 and "--rejudge" in done.err
