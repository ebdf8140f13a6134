"""Running from the editor against a live backend: the real server (spawned over stdio) runs
cases with Semantic Kernel and the agent's real function tools, only the model being the fake
OpenAI server on 127.0.0.1 (tests/fakes/openai_server.py) — no cassette.

The fake server runs on the test's event loop, which keeps running while the test awaits the
server's answer to `workspace/executeCommand`, so the server process can talk to it. The
server gets its API key from its environment (`OPENAI_API_KEY`); the endpoint is the agent's
`model.endpoint`.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Callable
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCall, Usage
from tests.server.lsp_client import (
    SERVER_COMMAND,
    SERVER_ENV,
    TIMEOUT,
    initialize,
    make_client,
    open_file,
    published,
)

# Live runs over stdio against the fake OpenAI server: seconds per test.
pytestmark = pytest.mark.slow

API_KEY = "sk-live-lsp-test-4c1d9e7a"
#: Generous: the first live run imports Semantic Kernel in the server (a hang fails, not blocks).
RUN_TIMEOUT = 60.0

#: The server's environment: the API key, and nothing OpenAI-related from the developer's.
LIVE_ENV = {
    **{k: v for k, v in SERVER_ENV.items() if not k.startswith(("OPENAI_", "AZURE_OPENAI_"))},
    "OPENAI_API_KEY": API_KEY,
}


#: Every `holodeck/runResult` the client received (one client: the fixture is module-scoped).
NOTIFIED: list[Any] = []


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The live server's (trusted) workspace folder; each test writes its agent in its own
    subfolder."""
    return tmp_path_factory.mktemp("live-workspace")


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND, client_factory=make_client, server_env=LIVE_ENV
    ),
    # One server for the module: its first live run imports Semantic Kernel, which takes
    # seconds. Each test runs its own agent file (its own results) against its own fake model.
    scope="module",
)
async def live_client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    lsp_client.set_configuration({}, section="holodeck")  # no cassette: a live backend

    @lsp_client.feature("holodeck/runResult")
    def on_result(params: Any) -> None:
        NOTIFIED.append(params)

    await initialize(lsp_client, root=workspace, trusted=True, progress=True)
    yield
    await lsp_client.shutdown_session()


TOOLS = '''\
def subtract(a: int, b: int) -> int:
    """Return a minus b."""
    return a - b
'''

AGENT = """\
name: live-runs
model:
  provider: openai
  name: gpt-4o-mini
  endpoint: "{endpoint}"
instructions:
  inline: "Answer with the number only. Use the tools for arithmetic."
tools:
  - name: subtract
    type: function
    description: "a minus b"
    file: tools.py
    function: subtract
evaluations:
  metrics:
    - type: standard
      metric: numeric
test_cases:
  - name: difference
    turns:
      - input: "What is 206588 minus 181001?"
        ground_truth: "25587"
        expected_tools:
          - name: subtract
            args:
              a: 206588
              b: 181001
      - input: "And 100 minus 85?"
        ground_truth: "15"
  - name: wrong
    turns:
      - input: "What is 50 minus 8?"
        ground_truth: "42"
        expected_tools:
          - name: subtract
            args:
              a: 50
              b: 8
      - input: "What is 9 minus 2?"
        ground_truth: "7"
"""
LINES = AGENT.splitlines()


def line_of(text: str, start: int = 0) -> int:
    """The first line from `start` whose stripped text is `text`."""
    return next(i for i, line in enumerate(LINES) if i >= start and line.strip() == text)


CASE0, CASE1 = line_of("- name: difference"), line_of("- name: wrong")
C0_T0, C0_T1 = (
    line_of('- input: "What is 206588 minus 181001?"'),
    line_of('- input: "And 100 minus 85?"'),
)
C0_T1_TRUTH = line_of('ground_truth: "15"')
C1_T0, C1_T1 = line_of('- input: "What is 50 minus 8?"'), line_of('- input: "What is 9 minus 2?"')
C1_T0_TRUTH, C1_T0_ARG_B = line_of('ground_truth: "42"'), line_of("b: 8", CASE1)


def tool_turn(a: int, b: int, answer: str) -> tuple[Reply, Reply]:
    """The model's two replies for one turn: call subtract(a, b), then answer."""
    return (
        Reply(tool_calls=[ToolCall("tools-subtract", {"a": a, "b": b})], usage=Usage(40, 8)),
        Reply(text=answer, usage=Usage(60, 3)),
    )


async def open_agent(client: LanguageClient, folder: Path, server: FakeOpenAIServer) -> str:
    """The agent (talking to `server`) and its tools.py written in `folder` and opened; the
    checker has nothing to say about it."""
    folder.mkdir()
    (folder / "tools.py").write_text(TOOLS, encoding="utf-8")
    agent = folder / "agent.yaml"
    agent.write_text(AGENT.format(endpoint=f"{server.base_url}/v1"), encoding="utf-8")
    seen = len(published(client))
    document_uri = open_file(client, agent)
    first = await publish_after(client, document_uri, seen)
    assert [d.message for d in first.diagnostics] == []
    return document_uri


def notified(document_uri: str) -> list[Any]:
    return [params for params in NOTIFIED if params.uri == document_uri]


async def run(client: LanguageClient, command: str, *arguments: Any) -> Any:
    answer = await asyncio.wait_for(
        client.workspace_execute_command_async(
            types.ExecuteCommandParams(command=command, arguments=list(arguments))
        ),
        RUN_TIMEOUT,
    )
    assert answer["status"] == "done", (answer, [m.message for m in client.messages])
    return answer


async def publish_after(
    client: LanguageClient,
    document_uri: str,
    seen: int,
    accept: Callable[[types.PublishDiagnosticsParams], bool] = lambda p: True,
) -> types.PublishDiagnosticsParams:
    """The first publish for `document_uri` among those after the first `seen` ones."""
    deadline = asyncio.get_running_loop().time() + TIMEOUT
    while True:
        for params in published(client)[seen:]:
            if params.uri == document_uri and accept(params):
                return params
        assert asyncio.get_running_loop().time() < deadline, f"no matching publish after {seen}"
        await asyncio.sleep(0.01)


def run_items(params: types.PublishDiagnosticsParams) -> list[tuple[int, str]]:
    return sorted(
        (d.range.start.line, d.message) for d in params.diagnostics if d.source == "holodeck-run"
    )


async def hints(client: LanguageClient, document_uri: str) -> list[tuple[int, str]]:
    found = await client.text_document_inlay_hint_async(
        types.InlayHintParams(
            text_document=types.TextDocumentIdentifier(uri=document_uri),
            range=types.Range(types.Position(0, 0), types.Position(len(LINES) + 1, 0)),
        )
    )
    return [(hint.position.line, str(hint.label)) for hint in found or []]


async def hint_heads(client: LanguageClient, document_uri: str) -> list[tuple[int, str]]:
    """The hints without their duration: `✓ 25587 · numeric 1.00` (the time is real)."""
    heads = []
    for line, label in await hints(client, document_uri):
        head, _, seconds = label.rpartition(" · ")
        assert seconds.endswith(" s") and float(seconds[:-2]) < RUN_TIMEOUT, label
        heads.append((line, head))
    return heads


async def lens_titles(client: LanguageClient, document_uri: str) -> list[tuple[int, str]]:
    found = await client.text_document_code_lens_async(
        types.CodeLensParams(text_document=types.TextDocumentIdentifier(uri=document_uri))
    )
    return [
        (lens.range.start.line, lens.command.title)
        for lens in found or []
        if lens.command is not None
    ]


async def test_run_case_live_runs_the_tool_and_shows_the_results_inline(
    live_client: LanguageClient, workspace: Path, fake_openai: FakeOpenAIServer
) -> None:
    client = live_client
    document_uri = await open_agent(client, workspace / "run-case", fake_openai)

    # -- case 0: both turns pass, the tool really runs ------------------------------------------
    fake_openai.script(*tool_turn(206588, 181001, "25587"), Reply(text="15"))
    seen = len(published(client))
    answer = await run(client, "holodeck.runCase", document_uri, 0)
    summary = answer["summary"]
    assert (summary["total_tests"], summary["passed"], summary["failed"]) == (1, 1, 0)
    assert (summary["total_turns"], summary["passed_turns"]) == (2, 2)
    [result] = answer["results"]
    assert result["test_name"] == "difference" and result["passed"] is True
    first, second = result["turns"]
    assert [first["response"], second["response"]] == ["25587", "15"]
    assert first["tools_matched"] is True and first["tool_calls"] == ["tools-subtract"]
    [call] = first["tool_invocations"]
    assert call["args"] == {"a": 206588, "b": 181001}
    assert call["result"] == 25587 and call["error"] is None  # tools.py's subtract ran
    assert first["token_usage"]["total_tokens"] == 48 + 63
    assert second["tool_invocations"] == []

    # What the model was sent: the key from the server's environment, the tool offered, the
    # tool's result, and turn 0 as context of turn 1.
    requests = fake_openai.chat_requests
    assert len(requests) == 3 and fake_openai.pending == 0
    assert requests[0].headers["authorization"] == f"Bearer {API_KEY}"
    assert requests[0].tool_names == ["tools-subtract"]
    tool_message = requests[1].messages[-1]
    assert tool_message["role"] == "tool" and tool_message["content"] == "25587"
    asked = json.dumps(requests[2].messages)
    assert "What is 206588 minus 181001?" in asked and "And 100 minus 85?" in asked

    [result_notification] = notified(document_uri)
    assert result_notification.caseIndex == 0 and result_notification.turn is None
    notified_result = result_notification.result
    assert notified_result.test_name == "difference" and notified_result.passed is True
    assert notified_result.turns[0].tool_invocations[0].result == 25587

    # The run's publish carries no `holodeck-run` items: nothing failed.
    assert run_items(await publish_after(client, document_uri, seen)) == []
    assert await hint_heads(client, document_uri) == [
        (C0_T0, "✓ 25587 · numeric 1.00"),
        (C0_T1, "✓ 15 · numeric 1.00"),
    ]

    # -- case 1: turn 0 calls the tool with a wrong argument and answers wrong ------------------
    fake_openai.script(*tool_turn(50, 9, "41"), Reply(text="7"))
    seen = len(published(client))
    answer = await run(client, "holodeck.runCase", document_uri, 1)
    summary = answer["summary"]
    assert (summary["total_tests"], summary["passed"], summary["failed"]) == (1, 0, 1)
    assert (summary["total_turns"], summary["passed_turns"]) == (2, 1)
    [result] = answer["results"]
    assert result["test_name"] == "wrong"
    assert [turn["passed"] for turn in result["turns"]] == [False, True]
    wrong = result["turns"][0]
    assert wrong["tools_matched"] is False
    assert wrong["tool_invocations"][0]["result"] == 41  # subtract(50, 9), really computed
    assert len(fake_openai.chat_requests) == 6 and fake_openai.pending == 0

    received = notified(document_uri)
    assert len(received) == 2
    assert received[1].caseIndex == 1 and received[1].result.test_name == "wrong"
    assert received[1].result.passed is False
    assert [turn.passed for turn in received[1].result.turns] == [False, True]

    # One diagnostic at the mismatched argument's line, one at the ground truth's.
    params = await publish_after(client, document_uri, seen, lambda p: bool(run_items(p)))
    (truth_line, truth_message), (arg_line, arg_message) = run_items(params)
    assert arg_line == C1_T0_ARG_B
    assert arg_message.startswith("expected_tools subtract: arg 'b' mismatch")
    assert truth_line == C1_T0_TRUTH
    assert truth_message.startswith("numeric 0.00") and "expected '42', got '41'" in truth_message
    errors = [d for d in params.diagnostics if d.source == "holodeck-run"]
    assert all(d.severity == types.DiagnosticSeverity.Error for d in errors)

    # The first case's results survive the second case's failure.
    assert await hint_heads(client, document_uri) == [
        (C0_T0, "✓ 25587 · numeric 1.00"),
        (C0_T1, "✓ 15 · numeric 1.00"),
        (C1_T0, "✗ 41 · numeric 0.00"),
        (C1_T1, "✓ 7 · numeric 1.00"),
    ]
    titles = await lens_titles(client, document_uri)
    assert titles[0][1] == "✗ Run all (1/2 cases)"
    assert titles[1:] == [
        (CASE0, "✓ Run case"),
        (CASE0, "↻ Re-grade"),
        (C0_T0, "✓ Run turn 0"),
        (C0_T1, "✓ Run turn 1"),
        (CASE1, "✗ Run case (1/2 turns)"),
        (CASE1, "↻ Re-grade"),
        (C1_T0, "✗ Run turn 0"),
        (C1_T1, "✓ Run turn 1"),
    ]
    assert client.messages == []  # nothing refused, nothing failed to run


async def test_run_turn_live_sends_the_earlier_turn_and_marks_that_turn(
    live_client: LanguageClient, workspace: Path, fake_openai: FakeOpenAIServer
) -> None:
    client = live_client
    document_uri = await open_agent(client, workspace / "run-turn", fake_openai)

    # Turn 0 goes first as context (its answer is not graded); turn 1's answer is wrong.
    fake_openai.script(*tool_turn(206588, 181001, "25587"), Reply(text="16"))
    seen = len(published(client))
    answer = await run(client, "holodeck.runTurn", document_uri, 0, 1)
    summary = answer["summary"]
    assert (summary["total_turns"], summary["passed_turns"], summary["failed"]) == (1, 0, 1)
    [result] = answer["results"]
    [turn] = result["turns"]
    assert (turn["turn_index"], turn["response"], turn["passed"]) == (1, "16", False)
    requests = fake_openai.chat_requests
    assert len(requests) == 3 and fake_openai.pending == 0
    assert requests[1].messages[-1]["content"] == "25587"  # the context turn's tool ran
    assert "What is 206588 minus 181001?" in json.dumps(requests[2].messages)

    [result_notification] = notified(document_uri)
    assert (result_notification.caseIndex, result_notification.turn) == (0, 1)
    assert [t.turn_index for t in result_notification.result.turns] == [1]

    params = await publish_after(client, document_uri, seen, lambda p: bool(run_items(p)))
    [(line, message)] = run_items(params)
    assert line == C0_T1_TRUTH and "expected '15', got '16'" in message
    # Only the graded turn is marked: no hint for turn 0, no case status.
    assert await hint_heads(client, document_uri) == [(C0_T1, "✗ 16 · numeric 0.00")]
    titles = [title for line, title in await lens_titles(client, document_uri) if line <= C0_T1]
    assert titles == ["▶ Run all", "▶ Run case", "▶ Run turn 0", "✗ Run turn 1"]
    assert client.messages == []


async def test_backend_overrides_from_settings_apply_to_editor_runs(
    live_client: LanguageClient, workspace: Path, fake_openai: FakeOpenAIServer
) -> None:
    client = live_client
    folder = workspace / "overrides"
    document_uri = await open_agent(client, folder, fake_openai)
    # The file points at a port nothing listens on; the setting points the run at the fake.
    agent = folder / "agent.yaml"
    text = AGENT.format(endpoint="http://127.0.0.1:9/v1")
    agent.write_text(text, encoding="utf-8")
    client.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=document_uri, version=2),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )
    overrides = {"endpoint": f"{fake_openai.base_url}/v1", "name": "gpt-override"}

    async def reconfigure(settings: dict[str, Any]) -> None:
        client.set_configuration(settings, section="holodeck")
        client.workspace_did_change_configuration(types.DidChangeConfigurationParams(settings=None))
        await asyncio.sleep(0.3)  # the server asks for the section again

    await reconfigure({"backends": {"openai": overrides}})
    try:
        fake_openai.script(*tool_turn(206588, 181001, "25587"), Reply(text="15"))
        answer = await run(client, "holodeck.runCase", document_uri, 0)
        assert answer["summary"]["passed"] == 1
        [request, *_] = fake_openai.chat_requests
        assert isinstance(request.body, dict) and request.body["model"] == "gpt-override"
        # An override the run cannot use is refused with the setting's name.
        await reconfigure({"backends": {"openai": {"api_key": "sk-in-settings"}}})
        refused = await client.workspace_execute_command_async(
            types.ExecuteCommandParams(command="holodeck.runCase", arguments=[document_uri, 0])
        )
        assert refused["status"] == "refused"
        assert "holodeck.backends.openai cannot override api_key" in refused["reason"]
        client.messages.clear()
    finally:
        await reconfigure({})
