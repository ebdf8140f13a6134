"""Traced runs on both backends, with judges, repeats and a failing provider, against the
real OTLP receiver (tests/fakes/otlp_receiver.py), configured by the standard `OTEL_*`
environment variables and `--trace` alone (no `observability:` block;
docs/observability.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes import anthropic_server as anthropic
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.judge_server import FakeJudgeServer
from tests.fakes.openai_server import ErrorReply, FakeOpenAIServer, Reply
from tests.fakes.otlp_receiver import OtlpReceiver
from tests.fakes.tool_loop_models import anthropic_responder
from tests.fakes.tool_loop_models import write_suite as write_tool_suite
from tests.runner.backends.test_claude_backend import needs_cli
from tests.runner.test_run_cli_judges import JUDGE_KEY
from tests.runner.test_run_cli_judges import write as write_judged
from tests.runner.test_run_cli_live import API_KEY, child_env, live_env, run_cli, write_suite
from tests.runner.test_run_matrix_live import matrix_env
from tests.runner.test_run_matrix_live import write_agent as write_matrix_agent
from tests.runner.test_run_tool_loop_claude import run_cli as run_claude_cli
from tests.runner.tracing.trace_support import by_name, children, evaluations

pytestmark = pytest.mark.slow


def otel_env(receiver: OtlpReceiver, protocol: str = "grpc") -> dict[str, str]:
    endpoint = receiver.grpc_endpoint if protocol == "grpc" else receiver.http_endpoint
    return {
        "OTEL_EXPORTER_OTLP_ENDPOINT": endpoint,
        "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc" if protocol == "grpc" else "http/protobuf",
        "OTEL_SERVICE_NAME": "from-the-environment",
    }


@needs_cli
async def test_the_claude_backend_is_traced_through_its_relay(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer, receiver: OtlpReceiver
) -> None:
    fake_anthropic.responder = anthropic_responder
    agent = write_tool_suite(tmp_path / "suite", "{provider: anthropic, name: claude-test-1}")
    env = child_env(
        tmp_path,
        ANTHROPIC_API_KEY="sk-ant-traced-5e1c",
        ANTHROPIC_BASE_URL=fake_anthropic.base_url,
        **otel_env(receiver, "http"),
    )
    args = [str(agent), "--no-save", "--case", "odd-calls", "--trace"]
    done = await run_claude_cli(args, env, tmp_path, 120.0)
    assert done.status == 1, done.err  # turn 2 calls no tool
    spans = receiver.spans(wait_for=10)
    assert spans[0]["resource"]["service.name"] == "from-the-environment"
    invokes = by_name(spans, "invoke_agent")
    assert len(invokes) == 3
    first = invokes[0]
    assert first["attributes"]["gen_ai.provider.name"] == "anthropic"
    assert first["attributes"]["gen_ai.request.model"] == "claude-test-1"
    chats = [span for span in children(spans, first) if span["name"].startswith("chat")]
    assert chats, [span["name"] for span in spans]
    assert all(chat["attributes"]["gen_ai.provider.name"] == "anthropic" for chat in chats)
    assert any(chat["attributes"].get("gen_ai.usage.output_tokens", 0) > 0 for chat in chats)
    tools = [span for span in children(spans, first) if span["name"].startswith("execute_tool")]
    assert len(tools) == 4
    assert all(tool["attributes"]["gen_ai.tool.call.id"].startswith("toolu_") for tool in tools)
    assert any(tool["status"].get("code") == 2 for tool in tools)  # a call that could not run


async def test_repeats_are_told_apart_and_an_errored_turn_carries_the_error_status(
    tmp_path: Path, fake_openai: FakeOpenAIServer, receiver: OtlpReceiver
) -> None:
    cases = '  - {name: one, input: "What is 2 minus 1?", ground_truth: "1"}\n'
    agent = write_suite(tmp_path / "suite", cases, endpoint=f"{fake_openai.base_url}/v1")
    fake_openai.script(Reply(text="1"), ErrorReply(503, "overloaded"))
    env = live_env(tmp_path, HOLODECK_RETRY_BUDGET="0", **otel_env(receiver))
    args = [str(agent), "--no-save", "--repeat", "2", "--parallel", "1", "--trace"]
    done = await run_cli(args, env, tmp_path)
    assert done.status != 0, done.err
    spans = receiver.spans(wait_for=6)
    cases_seen = by_name(spans, "holodeck.case")
    repeats = sorted(case["attributes"]["holodeck.case.repeat"] for case in cases_seen)
    assert repeats == [1, 2]
    assert len({case["attributes"]["gen_ai.conversation.id"] for case in cases_seen}) == 2
    turns = {
        span["attributes"]["holodeck.case.repeat"]: span for span in by_name(spans, "holodeck.turn")
    }
    assert turns[1]["status"].get("code") != 2
    errored = turns[2]
    assert errored["status"]["code"] == 2  # STATUS_CODE_ERROR
    assert errored["attributes"]["error.type"] == "provider_error"
    assert evaluations(errored)["turn_verdict"]["gen_ai.evaluation.score.label"] == "errored"
    [failed_chat] = [
        span for span in by_name(spans, "chat") if span["attributes"].get("error.type") == "503"
    ]
    assert failed_chat["status"]["code"] == 2


async def test_the_judges_model_calls_are_spans_of_the_turn_they_grade(
    tmp_path: Path, receiver: OtlpReceiver
) -> None:
    env = child_env(tmp_path, OPENAI_API_KEY=API_KEY, JUDGE_KEY=JUDGE_KEY, **otel_env(receiver))
    async with FakeOpenAIServer() as model, FakeJudgeServer() as judge:
        model.script(Reply(text="206588"), Reply(text="maybe 190000"), Reply(text="25587"))
        path = write_judged(tmp_path, model.base_url + "/v1", judge.base_url + "/v1")
        done = await run_cli([str(path), "--no-save", "--trace"], env, tmp_path)
    assert done.status == 1, done.err
    spans = receiver.spans(wait_for=15)
    [hedged] = [
        span
        for span in by_name(spans, "holodeck.turn 1")
        if span["attributes"]["holodeck.case.name"] == "revenue"
    ]
    judged = [
        span
        for span in children(spans, hedged)
        if span["attributes"].get("holodeck.call.role") == "judge"
    ]
    assert judged and all(span["name"] == "chat judge-1" for span in judged)
    assert JUDGE_KEY not in receiver.out.read_text(encoding="utf-8")
    verdict = evaluations(hedged)["Direct"]
    assert verdict["gen_ai.evaluation.score.label"] == "failed"
    assert verdict["gen_ai.evaluation.explanation"]
    assert verdict["gen_ai.request.model"]


@needs_cli
async def test_a_matrix_runs_models_told_apart(
    tmp_path: Path,
    fake_openai: FakeOpenAIServer,
    fake_anthropic: FakeAnthropicServer,
    receiver: OtlpReceiver,
) -> None:
    fake_openai.script(Reply(text="7"), Reply(text="15"))
    fake_anthropic.script(anthropic.Reply(text="7"), anthropic.Reply(text="15"))
    path = write_matrix_agent(tmp_path)
    env = {**matrix_env(tmp_path, fake_openai, fake_anthropic), **otel_env(receiver)}
    args = [str(path), "--no-save", "--trace", "--parallel", "2"]
    models = ["--model", "openai:gpt-4o", "--model", "anthropic:claude-sonnet-4-5"]
    done = await run_claude_cli([*args, *models], env, tmp_path, 120.0)
    assert done.status == 0, done.err
    spans = receiver.spans(wait_for=12)
    [run] = by_name(spans, "holodeck.run")
    assert run["attributes"]["holodeck.run.models"] == [
        "openai:gpt-4o",
        "anthropic:claude-sonnet-4-5",
    ]
    by_model = {case["attributes"]["holodeck.case.model"]: case for case in children(spans, run)}
    assert sorted(by_model) == ["anthropic:claude-sonnet-4-5", "openai:gpt-4o"]
    for model, provider in (
        ("openai:gpt-4o", "openai"),
        ("anthropic:claude-sonnet-4-5", "anthropic"),
    ):
        [turn, _] = children(spans, by_model[model])
        [invoke] = children(spans, turn)
        assert invoke["attributes"]["gen_ai.provider.name"] == provider
        assert invoke["attributes"]["gen_ai.request.model"] == model.split(":", 1)[1]
