"""`holodeck-lsp import otel FILE`: a traced run's spans, as the receiver stored them (the
collector's file-exporter format), become a suite — user turns, tool calls as literal expected
tools, answers as ground truth — and a cassette that replays the recorded answers and passes
(docs/importing-otel.md)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.otlp_receiver import OtlpReceiver
from tests.runner.test_run_cli_live import (
    CLI,
    Finished,
    finish,
    live_env,
    run_cli,
    tool_turn,
    write_suite,
)
from tests.runner.tracing.trace_support import observability_block

pytestmark = pytest.mark.slow


async def holodeck(args: list[str], env: dict[str, str], cwd: Path) -> Finished:
    """The console script with any subcommand (run_cli starts `run`)."""
    proc = await asyncio.create_subprocess_exec(
        CLI, *args, env=env, cwd=cwd, stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    return await finish(proc)


CASES = """\
  - name: difference
    turns:
      - input: "What is 206588 minus 181001?"
        ground_truth: "25587"
        expected_tools: [subtract]
      - input: "Thanks, and 100 minus 85?"
        ground_truth: "15"
"""


async def _recorded_trace(
    tmp_path: Path, fake_openai: FakeOpenAIServer, receiver: OtlpReceiver
) -> Path:
    block = observability_block(receiver.grpc_endpoint, extra="  traces: {capture_content: true}\n")
    agent = write_suite(
        tmp_path / "suite", CASES, endpoint=f"{fake_openai.base_url}/v1", execution=block
    )
    fake_openai.script(*tool_turn(206588, 181001, "25587"), *tool_turn(100, 85, "15"))
    done = await run_cli([str(agent), "--no-save"], live_env(tmp_path), tmp_path)
    assert done.status == 0, done.err
    receiver.spans(wait_for=10)
    return receiver.out


async def test_a_recorded_conversation_becomes_a_case_and_a_cassette_that_replays(
    tmp_path: Path, fake_openai: FakeOpenAIServer, receiver: OtlpReceiver
) -> None:
    trace = await _recorded_trace(tmp_path, fake_openai, receiver)
    out = tmp_path / "imported"
    env = live_env(tmp_path)
    done = await holodeck(["import", "otel", str(trace), "-o", str(out)], env, tmp_path)
    assert done.status == 0, done.err
    assert "imported 1 conversation(s), 2 turn(s)" in done.err

    text = (out / "agent.yaml").read_text(encoding="utf-8")
    assert "  # otel: " in text and "(service calc-under-test)" in text
    assert 'input: "What is 206588 minus 181001?"' in text
    assert 'ground_truth: "25587"' in text
    assert '{name: "subtract", args: {"a": 206588, "b": 181001}}' in text
    cassette = json.loads((out / "cassettes" / "recorded.json").read_text(encoding="utf-8"))
    [case] = cassette["cases"]
    assert [turn["response"] for turn in case["turns"]] == ["25587", "15"]
    assert case["turns"][0]["tool_calls"][0]["name"] == "tools-subtract"
    assert case["turns"][0]["tool_calls"][0]["result"] == 25587

    checked = await holodeck(["check", str(out / "agent.yaml")], env, tmp_path)
    assert checked.status == 0, checked.out + checked.err
    report = tmp_path / "replayed.json"
    replayed = await run_cli(
        [str(out / "agent.yaml"), "--no-save", "--replay",
         str(out / "cassettes" / "recorded.json"), "--report-json", str(report)],
        env,
        tmp_path,
    )  # fmt: skip
    assert replayed.status == 0, replayed.out + replayed.err
    results = json.loads(report.read_text(encoding="utf-8"))["results"]
    assert [turn["tools_matched"] for turn in results[0]["turns"]] == [True, True]
    assert all(turn["passed"] for turn in results[0]["turns"])


async def test_a_trace_without_message_content_is_refused_with_the_fix(
    tmp_path: Path, receiver: OtlpReceiver
) -> None:
    trace = tmp_path / "no-content.json"
    span = {
        "traceId": "0af7651916cd43dd8448eb211c80319c",
        "spanId": "b7ad6b7169203331",
        "name": "invoke_agent helper",
        "startTimeUnixNano": "1",
        "endTimeUnixNano": "2",
        "attributes": [{"key": "gen_ai.operation.name", "value": {"stringValue": "invoke_agent"}}],
    }
    document = {"resourceSpans": [{"scopeSpans": [{"spans": [span]}]}]}
    trace.write_text(json.dumps(document), encoding="utf-8")
    done = await holodeck(
        ["import", "otel", str(trace), "-o", str(tmp_path / "out")], live_env(tmp_path), tmp_path
    )
    assert done.status == 2
    assert "has no user message" in done.err
    assert "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT=true" in done.err
    assert not (tmp_path / "out").exists()
