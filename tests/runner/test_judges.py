"""LLM-judged metrics graded for real: G-Eval, every RAG metric and the standard judged
metrics, per turn and legacy, judged by deepeval (and our prompt) against a loopback fake
judge speaking the OpenAI, Ollama and Anthropic protocols; recorded next to the turn,
replayed with no judge, stale recordings, `rejudge`, the concurrency limit, and faults."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.runner.backends import create as backends
from holodeck_lsp.runner.cassette import Cassette, comparable, load_cassette
from holodeck_lsp.runner.run_session import Live, Replay, RunRequest, RunSession, Transcript
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import MetricResult, TestReport
from tests.fakes.judge_server import FakeJudgeServer
from tests.runner.fake_backend import FakeBackend, Reply, write_agent

pytestmark = pytest.mark.slow  # deepeval's import and real HTTP: about a second each

KEY = "sk-judge-test-9f3e2a"

RAG = "\n".join(
    f"      - type: rag\n        metric_type: {name}"
    for name in (
        "faithfulness",
        "answer_relevancy",
        "contextual_precision",
        "contextual_recall",
        "contextual_relevancy",
    )
)
STANDARD = "\n".join(
    f"      - type: standard\n        metric: {name}"
    for name in ("groundedness", "relevance", "coherence", "fluency")
)
GEVAL = """      - type: geval
        name: Direct
        criteria: The answer states the number without hedging.
        evaluation_params: [input, actual_output]"""


def deeper(block: str, spaces: int = 4) -> str:
    return "\n".join(" " * spaces + line for line in block.splitlines())


CASES = f"""  - name: dialogue
    turns:
      - input: "What was revenue in 2009?"
        ground_truth: "206588"
        retrieval_context: ["Revenue in 2009 was 206588.", "Costs in 2009 were 181001."]
        evaluations:
{deeper(GEVAL)}
{deeper(RAG)}
{deeper(STANDARD)}
      - input: "And in 2008?"
        evaluations:
{deeper(GEVAL)}
  - name: legacy
    input: "Net change?"
    ground_truth: "25587"
    retrieval_context: ["Net change was 25587."]
    evaluations:
{GEVAL}
"""


def judge_model(server: FakeJudgeServer, provider: str = "openai") -> str:
    endpoint = server.base_url + ("/v1" if provider == "openai" else "")
    return (
        "evaluations:\n  model:\n"
        f"    provider: {provider}\n    name: judge-1\n    endpoint: {endpoint}\n"
        "    api_key: ${JUDGE_TEST_KEY}\n"
        "  metrics:\n    - type: standard\n      metric: equality\n"
    )


def replies(hedge_2008: bool = False) -> FakeBackend:
    return FakeBackend(
        replies={
            "What was revenue in 2009?": Reply("206588"),
            "And in 2008?": Reply("maybe 190000" if hedge_2008 else "190000"),
            "Net change?": Reply("25587"),
        }
    )


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch) -> dict[str, str]:
    monkeypatch.setenv("JUDGE_TEST_KEY", KEY)
    return {"JUDGE_TEST_KEY": KEY}


def use_backend(monkeypatch: pytest.MonkeyPatch, fake: FakeBackend) -> None:
    monkeypatch.setattr(backends, "create_backend", lambda agent, agent_dir: fake)


async def run(agent: Agent, tmp_path: Path, **request: Any) -> tuple[TestReport, Cassette | None]:
    session = RunSession.open(RunRequest(agent, tmp_path / "agent.yaml", **request))
    outcome = await session.run()
    return outcome.report, outcome.recording


def metrics_of(report: TestReport) -> dict[tuple[str, int, str], MetricResult]:
    found: dict[tuple[str, int, str], MetricResult] = {}
    for case in report.results:
        turns = case.turns if case.turns is not None else None
        if turns is None:
            for metric in case.metric_results:
                found[(case.test_name or "", 0, metric.metric_name)] = metric
            continue
        for turn in turns:
            for metric in turn.metric_results:
                found[(case.test_name or "", turn.turn_index, metric.metric_name)] = metric
    return found


async def record(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, server: FakeJudgeServer, **request: Any
) -> tuple[Agent, TestReport, Path]:
    agent = write_agent(tmp_path, CASES, judge_model(server))
    use_backend(monkeypatch, replies())
    report, recording = await run(agent, tmp_path, answers=Live(record=True), **request)
    assert recording is not None
    path = tmp_path / "run.cassette.json"
    recording.write(path)
    return agent, report, path


async def test_every_judged_metric_is_graded_per_turn_and_legacy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    async with FakeJudgeServer() as server:
        _, report, _ = await record(tmp_path, monkeypatch, server)
    metrics = metrics_of(report)
    judged = [
        "Direct", "faithfulness", "answer_relevancy", "contextual_precision",
        "contextual_recall", "contextual_relevancy", "groundedness", "relevance",
        "coherence", "fluency",
    ]  # fmt: skip
    for name in judged:
        result = metrics[("dialogue", 0, name)]
        assert result.passed is True and not result.skipped, (name, result)
        assert result.score == 1.0 and result.reasoning, name
        assert result.model_used == "openai:judge-1"
        assert result.judge_tokens is not None and result.judge_tokens.total_tokens > 0
        assert result.judge_input is not None and result.judge_latency_ms is not None
    assert metrics[("dialogue", 1, "Direct")].passed is True
    assert metrics[("legacy", 0, "Direct")].passed is True
    # Judge tokens are summed apart from the agent's.
    assert report.summary.judge_token_usage is not None
    assert report.summary.judge_token_usage.total_tokens > 0
    # G-Eval saw the fields it lists; the key never reached a prompt, only a header.
    prompts = "\n".join(server.prompts())
    assert "The answer states the number without hedging." in prompts
    assert KEY not in prompts
    assert all(h.get("Authorization") == f"Bearer {KEY}" for h in server.headers)


async def test_a_hedged_answer_fails_its_geval_and_only_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    async with FakeJudgeServer() as server:
        agent = write_agent(tmp_path, CASES, judge_model(server))
        use_backend(monkeypatch, replies(hedge_2008=True))
        report, _ = await run(agent, tmp_path)
    metrics = metrics_of(report)
    hedged = metrics[("dialogue", 1, "Direct")]
    assert hedged.passed is False and hedged.score < 0.5 and hedged.error is None
    assert metrics[("dialogue", 0, "Direct")].passed is True


async def test_replay_with_no_judge_gives_identical_results(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    async with FakeJudgeServer() as server:
        agent, recorded, path = await record(tmp_path, monkeypatch, server)
        calls = len(server.requests)
    data = json.loads(path.read_text(encoding="utf-8"))
    first = data["cases"][0]["turns"][0]
    assert data["version"] == 6 and len(first["judgements"]) == 10
    assert KEY not in path.read_text(encoding="utf-8")
    replayed, _ = await run(agent, tmp_path, answers=Replay(path))  # the server is gone
    assert calls > 0
    assert _without_mode(comparable(replayed)) == _without_mode(comparable(recorded))


def _without_mode(report: dict[str, Any]) -> dict[str, Any]:
    report.pop("environment", None)
    return report


async def test_changed_criteria_make_the_recording_stale_and_rejudge_judges_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    async with FakeJudgeServer() as server:
        _, _, path = await record(tmp_path, monkeypatch, server)
        edited = CASES.replace("without hedging.", "without hedging or caveats.")
        agent = write_agent(tmp_path, edited, judge_model(server))
        stale, _ = await run(agent, tmp_path, answers=Replay(path))
        before = len(server.requests)
        rejudged, _ = await run(agent, tmp_path, answers=Replay(path), rejudge=True)
        assert len(server.requests) > before
    metric = metrics_of(stale)[("dialogue", 0, "Direct")]
    assert metric.passed is False and metric.error is not None
    assert metric.error.startswith("judge recording is stale")
    # The RAG metrics' input did not change: still graded from the recording.
    assert metrics_of(stale)[("dialogue", 0, "faithfulness")].passed is True
    assert metrics_of(rejudged)[("dialogue", 0, "Direct")].passed is True


async def test_regrading_in_the_editor_never_calls_the_judge(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    async with FakeJudgeServer() as server:
        agent, _, path = await record(tmp_path, monkeypatch, server)
        before = len(server.requests)
        edited = write_agent(
            tmp_path, CASES.replace("without hedging.", "plainly."), judge_model(server)
        )
        report, _ = await run(edited, tmp_path, answers=Transcript(load_cassette(path)))
        same, _ = await run(agent, tmp_path, answers=Transcript(load_cassette(path)))
        assert len(server.requests) == before
    needs_run = metrics_of(report)[("dialogue", 0, "Direct")]
    assert needs_run.skipped and needs_run.reasoning and "needs a run" in needs_run.reasoning
    assert metrics_of(same)[("dialogue", 0, "Direct")].passed is True


async def test_judge_calls_never_exceed_the_concurrency_limit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    async with FakeJudgeServer(latency=0.05) as server:
        await record(tmp_path, monkeypatch, server, judge_concurrency=3)
        assert server.max_in_flight == 3


@pytest.fixture
def retry_budget() -> Callable[[int], None]:
    """Sets the process's retry budget for the test (tests/conftest.py resets it after)."""
    from holodeck_lsp.runner.limits import registry

    return lambda retries: registry.configure(registry.LimitSettings(retry_budget=retries))


@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        ("http500", "answered HTTP 500"),
        ("malformed", "JSON"),
        ("refusal", "refused"),
        ("out_of_range", "outside"),
    ],
)
async def test_a_judge_fault_fails_that_metric_only(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    fault: str,
    expected: str,
    retry_budget: Callable[[int], None],
) -> None:
    async with FakeJudgeServer() as server:
        if fault == "http500":
            # One retry, then the fault stands: the default budget's backoff would wait
            # about 100 s for the same verdict (the retries: tests/runner/long_runs/).
            retry_budget(1)
            server.fail_next(500, times=1000)
        else:
            server.mode = fault
        agent = write_agent(tmp_path, CASES, judge_model(server))
        use_backend(monkeypatch, replies())
        report, _ = await run(agent, tmp_path)
    metrics = metrics_of(report)
    for name in ("Direct", "relevance"):
        result = metrics[("dialogue", 0, name)]
        assert result.passed is False and result.error is not None, (name, result)
        assert expected in result.error, (name, result.error)
    # The turn's other metric and the run survive.
    assert len(report.results) == 2
    assert report.results[0].turns is not None and report.results[0].turns[0].response == "206588"


async def test_a_judge_timeout_fails_that_metric(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    retry_budget: Callable[[int], None],
) -> None:
    retry_budget(1)  # a timed-out request is retried within the budget: once is enough here
    cases = CASES.replace(
        "          - type: standard\n            metric: fluency",
        "          - type: standard\n            metric: fluency\n            timeout_ms: 50",
    )
    async with FakeJudgeServer(latency=0.5) as server:
        agent = write_agent(tmp_path, cases, judge_model(server))
        use_backend(monkeypatch, replies())
        report, _ = await run(agent, tmp_path, selection=_only_dialogue())
    fluency = metrics_of(report)[("dialogue", 0, "fluency")]
    assert fluency.passed is False and fluency.error is not None
    assert "did not answer within 0.05 s" in fluency.error
    assert metrics_of(report)[("dialogue", 0, "coherence")].passed is True


def _only_dialogue() -> Any:
    from holodeck_lsp.runner.selection import Selection

    return Selection(case="dialogue")


@pytest.mark.parametrize("provider", ["ollama", "anthropic"])
async def test_the_other_protocols_judge_too(
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    env: dict[str, str],
    provider: str,
) -> None:
    async with FakeJudgeServer() as server:
        agent = write_agent(tmp_path, CASES, judge_model(server, provider))
        use_backend(monkeypatch, replies(hedge_2008=True))
        report, _ = await run(agent, tmp_path)
    metrics = metrics_of(report)
    assert metrics[("dialogue", 0, "Direct")].passed is True
    assert metrics[("dialogue", 0, "faithfulness")].passed is True
    assert metrics[("dialogue", 0, "relevance")].passed is True
    assert metrics[("dialogue", 1, "Direct")].passed is False
    expected = "/api/chat" if provider == "ollama" else "/v1/messages"
    assert all(path.startswith(expected) for path in server.paths)


async def test_a_secret_in_an_answer_never_reaches_the_judge_or_the_recording(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    """Planted secret: the agent echoes the `${JUDGE_TEST_KEY}` value; the judge's prompts,
    the report and the cassette's judgements all have it masked."""
    leaky = replies()
    leaky.replies["What was revenue in 2009?"] = Reply(f"206588 (key {KEY})")
    async with FakeJudgeServer() as server:
        agent = write_agent(tmp_path, CASES, judge_model(server))
        use_backend(monkeypatch, leaky)
        report, recording = await run(agent, tmp_path, answers=Live(record=True))
        prompts = "\n".join(server.prompts())
    assert server.requests and KEY not in prompts and "***" in prompts
    assert KEY not in report.model_dump_json()
    assert recording is not None and KEY not in recording.render()


async def test_retrieval_tool_results_are_the_context_of_turns_without_their_own(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    """As upstream: an `is_retrieval` MCP server's results, gathered over the session, are
    the retrieval_context of a turn that sets none."""
    from holodeck_lsp.schema.results import ToolInvocation

    cases = """  - name: rag
    turns:
      - input: "What was revenue in 2009?"
        evaluations:
          - {type: rag, metric_type: faithfulness}
      - input: "And costs?"
        evaluations:
          - {type: rag, metric_type: faithfulness}
  - name: no-retrieval
    input: "Anything?"
    evaluations:
      - {type: rag, metric_type: faithfulness}
"""
    tools = (
        "tools:\n  - {name: kb, type: mcp, description: Search., command: npx, args: [kb],"
        " is_retrieval: true}\n"
    )
    passage = "Revenue in 2009 was 206588; costs were 181001."
    found = ToolInvocation(name="kb-search", args={"q": "revenue"}, result=[passage])
    backend = FakeBackend(
        replies={
            "What was revenue in 2009?": Reply("206588", tools=(found,)),
            "And costs?": Reply("181001"),
            "Anything?": Reply("nothing"),
        }
    )
    async with FakeJudgeServer() as server:
        agent = write_agent(tmp_path, cases, tools + judge_model(server))
        use_backend(monkeypatch, backend)
        report, _ = await run(agent, tmp_path)
        prompts = "\n".join(server.prompts())
    metrics = metrics_of(report)
    assert metrics[("rag", 0, "faithfulness")].passed is True
    assert metrics[("rag", 1, "faithfulness")].passed is True  # the session's passage
    skipped = metrics[("no-retrieval", 0, "faithfulness")]
    assert skipped.skipped and skipped.reasoning == "no retrieval_context on this turn"
    assert passage in prompts


async def test_regrading_a_result_reuses_its_verdicts_per_turn_and_legacy(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, env: dict[str, str]
) -> None:
    """What the editor does after a run: the results' own verdicts (transcript_of) regrade
    the same suite with no judge call, for multi-turn and single-turn cases alike."""
    from holodeck_lsp.runner.cassette import transcript_of

    async with FakeJudgeServer() as server:
        agent, report, _ = await record(tmp_path, monkeypatch, server)
        calls = len(server.requests)
        cassette = Cassette(
            agent="agent", cases=[transcript_of(r, i) for i, r in enumerate(report.results)]
        )
        regraded, _ = await run(agent, tmp_path, answers=Transcript(cassette))
        assert len(server.requests) == calls
    before, after = metrics_of(report), metrics_of(regraded)
    assert after[("legacy", 0, "Direct")].passed is True
    for key, metric in before.items():
        assert (after[key].passed, after[key].score) == (metric.passed, metric.score), key
