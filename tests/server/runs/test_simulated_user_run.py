"""A simulated-user case run from the editor, over stdio against the real server: the agent on
the fake OpenAI server, the simulated user on the fake Anthropic server. The Run lens runs
it, the answer and the `holodeck/runResult` notification carry the generated turns and the
simulator's record, the results show inline, and a simulator's failure is shown as the
simulator's, not the agent's."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.simulated_user import anthropic_user
from tests.runner.simulation.test_simulated_run_cli import AGENT_REPLIES, write_agent
from tests.server.lsp_client import (
    SERVER_COMMAND,
    SERVER_ENV,
    initialize,
    make_client,
    open_file,
    published,
)
from tests.server.runs.test_test_discovery import discover
from tests.server.test_server_run_live import hints, lens_titles, publish_after, run

pytestmark = pytest.mark.slow

ENV = {
    **{k: v for k, v in SERVER_ENV.items() if not k.startswith(("OPENAI_", "ANTHROPIC_"))},
    "OPENAI_API_KEY": "sk-live-lsp-sim-5d2e8f1a",
    "ANTHROPIC_API_KEY": "sk-ant-lsp-sim-9b3c7d2e",
}
NOTIFIED: list[Any] = []


@pytest.fixture(scope="module")
def workspace(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("simulated-workspace")


@pytest_lsp.fixture(
    config=ClientServerConfig(
        server_command=SERVER_COMMAND, client_factory=make_client, server_env=ENV
    ),
    scope="module",
)
async def sim_client(lsp_client: LanguageClient, workspace: Path) -> AsyncIterator[None]:
    lsp_client.set_configuration({}, section="holodeck")  # no cassette: live backends

    @lsp_client.feature("holodeck/runResult")
    def on_result(params: Any) -> None:
        NOTIFIED.append(params)

    await initialize(lsp_client, root=workspace, trusted=True, progress=True)
    yield
    await lsp_client.shutdown_session()


async def _opened(
    client: LanguageClient, folder: Path, agent_url: str, user_url: str, max_turns: int = 3
) -> str:
    agent = write_agent(folder, agent_url, user_url, (("balance", max_turns),))
    seen = len(published(client))
    uri = open_file(client, agent)
    first = await publish_after(client, uri, seen)
    assert [d.code for d in first.diagnostics] == ["HD160"]  # extends upstream: a warning
    return uri


async def test_the_run_lens_runs_a_simulated_conversation(
    sim_client: LanguageClient,
    workspace: Path,
    fake_openai: FakeOpenAIServer,
    fake_anthropic: FakeAnthropicServer,
) -> None:
    client = sim_client
    uri = await _opened(client, workspace / "ok", fake_openai.base_url, fake_anthropic.base_url)
    titles = await lens_titles(client, uri)
    case_line = next(line for line, title in titles if title == "▶ Run case")
    fake_openai.script(*AGENT_REPLIES)
    fake_anthropic.script(*anthropic_user("Order W2378156: what is left?", "Thanks ###STOP###"))
    answer = await run(client, "holodeck.runCase", uri, 0)
    [result] = answer["results"]
    assert result["passed"] is True and result["simulator_failed"] is False
    assert [t["user_source"] for t in result["turns"]] == ["scripted", "simulated"]
    assert result["turns"][1]["input"] == "Order W2378156: what is left?"
    assert result["simulation"]["model"] == "anthropic:claude-haiku-4-5"
    assert result["simulation"]["stop_marker"] == "###STOP###"
    [notification] = [n for n in NOTIFIED if n.uri == uri]
    assert [t.user_source for t in notification.result.turns] == ["scripted", "simulated"]
    assert (case_line, "✓ Run case") in await lens_titles(client, uri)
    shown = [label for _, label in await hints(client, uri)]
    assert any("Sure, what is your order number?" in label for label in shown), shown
    assert "🤖 1 simulated turn · ###STOP### · at_end ✓" in shown, shown


async def test_a_simulator_failure_is_the_simulators_in_the_editor(
    sim_client: LanguageClient,
    workspace: Path,
    fake_openai: FakeOpenAIServer,
    fake_anthropic: FakeAnthropicServer,
) -> None:
    client = sim_client
    uri = await _opened(
        client, workspace / "stuck", fake_openai.base_url, fake_anthropic.base_url, max_turns=1
    )
    fake_openai.script(*AGENT_REPLIES)
    fake_anthropic.script(*anthropic_user("Order W2378156.", "And the balance?"))
    seen = len(published(client))
    answer = await run(client, "holodeck.runCase", uri, 0)
    [result] = answer["results"]
    assert result["simulator_failed"] is True and result["passed"] is False
    assert answer["summary"]["failed"] == 0 and answer["summary"]["simulator_failed"] == 1
    # The run's results come in the first publish that carries them: publishes of the
    # document's own check (its slow pass, the check again once the settings are read) may
    # come between `seen` and the results.
    after = await publish_after(
        client, uri, seen, lambda p: any(d.source == "holodeck-run" for d in p.diagnostics)
    )
    messages = [d.message for d in after.diagnostics if d.source == "holodeck-run"]
    assert any("simulated user" in m and "never_stopped" in m for m in messages), messages
    warning = next(d for d in after.diagnostics if "never_stopped" in d.message)
    assert warning.severity == types.DiagnosticSeverity.Warning  # not the agent's error
    titles = [title for _, title in await lens_titles(client, uri)]
    assert "! Run case (simulator failed)" in titles, titles
    shown = [label for _, label in await hints(client, uri)]
    assert "🤖 0 simulated turns · simulator failed: never_stopped" not in shown
    assert "🤖 1 simulated turn · simulator failed: never_stopped" in shown, shown


async def test_the_progress_counts_the_generated_turns_against_the_bound(
    sim_client: LanguageClient,
    workspace: Path,
    fake_openai: FakeOpenAIServer,
    fake_anthropic: FakeAnthropicServer,
) -> None:
    # One scripted turn and at most three simulated ones (planned at 4); the user stops after
    # one message: the conversation takes 2 turns, and the last report says so
    # (docs/simulated-users.md "Progress while the conversation runs").
    client = sim_client
    uri = await _opened(
        client, workspace / "progress", fake_openai.base_url, fake_anthropic.base_url
    )
    fake_openai.script(*AGENT_REPLIES)
    fake_anthropic.script(*anthropic_user("Order W2378156: what is left?", "Thanks ###STOP###"))
    # The Testing view's generated items point at the `simulated_user` key (line 11).
    found = await discover(client, uri)
    [case] = found.cases
    assert case.simulatedRange.start.line == 10 and len(case.turns) == 1, case
    before = set(client.progress_reports)
    await run(client, "holodeck.runCase", uri, 0)
    [token] = set(client.progress_reports) - before
    reports = client.progress_reports[token]
    messages = [r.message for r in reports if isinstance(r, types.WorkDoneProgressReport)]
    assert messages[:2] == ["starting backend…", "running up to 4 turns…"], messages
    turns = [m for m in messages if m and m.startswith("balance turn")]
    assert turns[0].startswith("balance turn 0 ✓ (1/≤4)"), turns
    assert turns[1].startswith("balance turn 1 ✓ (2/≤4)"), turns
    assert turns[-1].startswith("balance turn 1 ✓ (2/2)"), turns  # the case ended: exact
    last = [r for r in reports if isinstance(r, types.WorkDoneProgressReport)][-1]
    assert last.percentage == 100
