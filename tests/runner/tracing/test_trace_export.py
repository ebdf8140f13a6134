"""`holodeck-lsp run` with tracing on, as a real process, against a real OTLP receiver
(tests/fakes/otlp_receiver.py) over gRPC and HTTP: the span tree, the GenAI attributes and
the evaluation events read back from what the receiver stored (docs/observability.md)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.otlp_receiver import OtlpReceiver
from tests.runner.test_run_cli_live import (
    SUITE_REPLIES,
    live_env,
    run_cli,
    write_suite,
)
from tests.runner.tracing.trace_support import by_name, children, evaluations, observability_block

pytestmark = pytest.mark.slow


@pytest.mark.parametrize("protocol", ["grpc", "http"])
async def test_a_traced_run_sends_its_span_tree_to_the_receiver(
    tmp_path: Path, fake_openai: FakeOpenAIServer, receiver: OtlpReceiver, protocol: str
) -> None:
    endpoint = receiver.grpc_endpoint if protocol == "grpc" else receiver.http_endpoint
    agent = write_suite(
        tmp_path / "suite",
        endpoint=f"{fake_openai.base_url}/v1",
        execution=observability_block(endpoint, protocol),
    )
    fake_openai.script(*SUITE_REPLIES)
    done = await run_cli([str(agent), "--parallel", "1"], live_env(tmp_path), tmp_path)
    assert done.status == 1, done.err  # `mismatch` fails its second turn
    spans = receiver.spans(wait_for=20)

    [run] = by_name(spans, "holodeck.run")
    assert run["parent"] is None
    assert run["resource"]["service.name"] == "calc-under-test"
    assert run["resource"]["team"] == "evals"
    assert run["attributes"]["holodeck.run.failed"] == 1
    cases = children(spans, run)
    assert [case["attributes"]["holodeck.case.name"] for case in cases] == [
        "difference",
        "mismatch",
    ]
    conversations = {case["attributes"]["gen_ai.conversation.id"] for case in cases}
    assert len(conversations) == 2
    assert {span["trace_id"] for span in spans} == {run["trace_id"]}

    turns = children(spans, cases[1])
    assert [turn["name"] for turn in turns] == ["holodeck.turn 0", "holodeck.turn 1"]
    [invoke] = children(spans, turns[1])
    attributes = invoke["attributes"]
    assert invoke["name"] == "invoke_agent live-calculator"
    assert attributes["gen_ai.operation.name"] == "invoke_agent"
    assert attributes["gen_ai.provider.name"] == "openai"
    assert attributes["gen_ai.request.model"] == "gpt-4o-mini"
    assert attributes["gen_ai.conversation.id"] == cases[1]["attributes"]["gen_ai.conversation.id"]
    assert attributes["gen_ai.usage.input_tokens"] == 100
    assert attributes["gen_ai.usage.output_tokens"] == 11
    assert "gen_ai.input.messages" not in attributes  # no content without the opt-in

    calls = children(spans, invoke)
    assert [call["name"] for call in calls] == [
        "chat gpt-4o-mini",
        "execute_tool tools-subtract",
        "chat gpt-4o-mini",
    ]
    first_chat, tool, second_chat = calls
    assert first_chat["attributes"]["gen_ai.usage.input_tokens"] == 40
    assert first_chat["attributes"]["gen_ai.usage.output_tokens"] == 8
    assert first_chat["attributes"]["gen_ai.response.finish_reasons"] == ["tool_calls"]
    assert second_chat["attributes"]["gen_ai.provider.name"] == "openai"
    assert tool["attributes"]["gen_ai.tool.name"] == "tools-subtract"
    assert tool["attributes"]["gen_ai.tool.call.id"].startswith("call_")
    assert "gen_ai.tool.call.arguments" not in tool["attributes"]

    verdicts = evaluations(turns[1])
    assert verdicts["turn_verdict"]["gen_ai.evaluation.score.label"] == "failed"
    assert verdicts["expected_tools"]["gen_ai.evaluation.score.label"] == "failed"
    assert verdicts["numeric"]["gen_ai.evaluation.score.label"] == "failed"  # key in the answer
    first = evaluations(turns[0])
    assert first["turn_verdict"]["gen_ai.evaluation.score.label"] == "passed"
    assert first["numeric"]["gen_ai.evaluation.score.label"] == "passed"
    assert first["numeric"]["gen_ai.evaluation.score.value"] == 1.0


async def test_context_turns_of_turn_n_end_with_their_case(
    tmp_path: Path, fake_openai: FakeOpenAIServer, receiver: OtlpReceiver
) -> None:
    agent = write_suite(
        tmp_path / "suite",
        endpoint=f"{fake_openai.base_url}/v1",
        execution=observability_block(receiver.grpc_endpoint),
    )
    fake_openai.script(*SUITE_REPLIES[:4])
    args = [str(agent), "--no-save", "--case", "difference", "--turn", "1"]
    done = await run_cli(args, live_env(tmp_path), tmp_path)
    assert done.status == 0, done.err
    spans = receiver.spans(wait_for=10)
    [case] = by_name(spans, "holodeck.case")
    context, graded = children(spans, case)
    assert context["attributes"]["holodeck.turn.context"] is True
    assert context["status"].get("code") != 2 and not context["events"]
    assert evaluations(graded)["turn_verdict"]["gen_ai.evaluation.score.label"] == "passed"
