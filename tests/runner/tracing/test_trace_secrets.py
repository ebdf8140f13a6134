"""No secret leaves a traced run: the leaky suite (tests/fakes/leaky_suite.py: a tool echoing
the API key, a `${VAR}` of the instructions repeated by the model, a backend error quoting the
key) traced with message content captured, and a `${VAR}` among the resource attributes —
every span, attribute, event and resource the receiver stored is masked
(docs/observability.md, "Secrets")."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fakes.leaky_suite import ENV, MASK, assert_masked, leaky_replies, write_leaky_suite
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.otlp_receiver import OtlpReceiver
from tests.runner.test_run_cli_live import child_env, run_cli
from tests.runner.tracing.trace_support import by_name

pytestmark = pytest.mark.slow


async def test_no_secret_reaches_the_receiver(
    tmp_path: Path, fake_openai: FakeOpenAIServer, receiver: OtlpReceiver
) -> None:
    agent = write_leaky_suite(tmp_path / "suite", f"{fake_openai.base_url}/v1")
    block = (
        "observability:\n"
        "  enabled: true\n"
        "  resource_attributes: {owner: '${LEAKY_CODE_WORD}'}\n"
        f"  exporters: {{otlp: {{endpoint: '{receiver.http_endpoint}', protocol: http}}}}\n"
    )
    agent.write_text(agent.read_text(encoding="utf-8") + block, encoding="utf-8")
    fake_openai.script(*leaky_replies())
    env = child_env(tmp_path, **ENV, OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT="true")
    done = await run_cli([str(agent), "--parallel", "1"], env, tmp_path)
    assert done.status == 1, done.err
    spans = receiver.spans(wait_for=12)
    stored = receiver.out.read_text(encoding="utf-8")

    # The secrets were in the spans, masked: the tool's result, the answer, the error status.
    [tool] = by_name(spans, "execute_tool")
    assert tool["attributes"]["gen_ai.tool.call.result"] == MASK
    answers = [span["attributes"].get("gen_ai.output.messages", "") for span in spans]
    assert any(f"The code word is {MASK}." in answer for answer in answers)
    errors = [span["status"].get("message", "") for span in by_name(spans, "invoke_agent")]
    assert any(MASK in error for error in errors), errors
    assert spans[0]["resource"]["owner"] == MASK
    assert_masked(stored, done.out, done.err)
