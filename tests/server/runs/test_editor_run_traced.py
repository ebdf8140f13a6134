"""The editor's runs honour the agent's `observability:` block as `run` does: `holodeck.runAll`
on the leaky suite (tests/fakes/leaky_suite.py) sends its span tree to the real OTLP receiver
(tests/fakes/otlp_receiver.py), masked; the re-grade on demand is a run of its own (mode
`regrade`); the re-grade on each edit is not traced (docs/observability.md, "Turning tracing
on")."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest
import pytest_lsp
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.fakes.leaky_suite import ENV, MASK, assert_masked, leaky_replies, write_leaky_suite
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.otlp_receiver import OtlpReceiver
from tests.server.lsp_client import SERVER_COMMAND, SERVER_ENV, initialize, make_client, open_file
from tests.server.test_server_run_secrets import command

pytestmark = pytest.mark.slow

TRACED_ENV = {
    **{k: v for k, v in SERVER_ENV.items() if not k.startswith(("OPENAI_", "AZURE_OPENAI_"))},
    **ENV,
    "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true",
}


@pytest.fixture
def editor_receiver(tmp_path: Path) -> Iterator[OtlpReceiver]:
    found = OtlpReceiver(tmp_path)
    try:
        yield found
    finally:
        found.close()


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND, client_factory=make_client, server_env=TRACED_ENV
    )
)
async def traced_client(lsp_client: LanguageClient, tmp_path: Path) -> AsyncIterator[None]:
    lsp_client.set_configuration({}, section="holodeck")  # no cassette: a live backend
    await initialize(lsp_client, root=tmp_path, trusted=True, progress=True)
    yield
    await lsp_client.shutdown_session()


async def test_an_editor_run_is_traced_by_the_agents_block(
    traced_client: LanguageClient,
    tmp_path: Path,
    fake_openai: FakeOpenAIServer,
    editor_receiver: OtlpReceiver,
) -> None:
    client = traced_client
    agent = write_leaky_suite(tmp_path / "suite", f"{fake_openai.base_url}/v1")
    block = (
        "observability:\n"
        "  enabled: true\n"
        f"  exporters: {{otlp: {{endpoint: '{editor_receiver.http_endpoint}', protocol: http}}}}\n"
    )
    agent.write_text(agent.read_text(encoding="utf-8") + block, encoding="utf-8")
    document_uri = open_file(client, agent)
    fake_openai.script(*leaky_replies())

    answer = await command(client, "holodeck.runAll", document_uri)
    assert answer["status"] == "done", (answer, [m.message for m in client.messages])
    spans = editor_receiver.spans(wait_for=12)
    runs = [span for span in spans if span["name"] == "holodeck.run"]
    assert len(runs) == 1
    assert runs[0]["resource"]["service.name"] == "holodeck-leaky"
    cases = [span for span in spans if span["parent"] == runs[0]["span_id"]]
    assert sorted(case["attributes"]["holodeck.case.name"] for case in cases) == [
        "backend-error",
        "instructions",
        "tool-echo",
    ]
    [tool] = [span for span in spans if span["name"].startswith("execute_tool")]
    assert tool["attributes"]["gen_ai.tool.call.result"] == MASK

    regraded = await command(client, "holodeck.regradeCase", document_uri, 0)
    assert regraded["status"] == "done", regraded
    again = editor_receiver.spans(wait_for=len(spans) + 3)
    [regrade] = [s for s in again if s["name"] == "holodeck.run" and s not in runs]
    assert regrade["attributes"]["holodeck.run.mode"] == "regrade"
    assert_masked(editor_receiver.out.read_text(encoding="utf-8"))
