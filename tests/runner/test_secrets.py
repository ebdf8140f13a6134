"""Secrets never reach reports, cassettes or logs."""

from __future__ import annotations

import logging
import os
from pathlib import Path

import pytest

from holodeck_lsp.reports.run import json_report, junit, markdown
from holodeck_lsp.runner.cassette import RecordingBackend
from holodeck_lsp.runner.execution.executor import run_suite
from holodeck_lsp.runner.secrets import MASK, RedactingFilter, Redactor, collect_secrets
from holodeck_lsp.schema.agent import Agent
from tests.runner.fake_backend import FakeBackend, Reply, write_agent

KEY = 'sk_live_abc"123<&>'  # quotes and markup: escaped differently by each writer
MCP_VALUE = "mcp-pass-9876"
PROCESS_TOKEN = "ghp_processtoken42"
SUBSTITUTED = "db_user_secret_77"


def agent_with_secrets(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Agent:
    monkeypatch.setenv("MY_SERVICE_KEY", KEY)
    monkeypatch.setenv("DB_USER", SUBSTITUTED)
    monkeypatch.setenv("GITHUB_TOKEN", PROCESS_TOKEN)
    tools = (
        "tools:\n"
        "  - name: files\n    type: mcp\n    description: File server\n"
        "    command: npx\n    args: ['-y', 'server']\n"
        f"    env:\n      PASS: {MCP_VALUE}\n      USER: ${{DB_USER}}\n"
    )
    return write_agent(
        tmp_path,
        '  - name: c\n    input: "tell me"\n',
        tools,
        model_extra="  api_key: ${MY_SERVICE_KEY}\n",
    )


def test_every_kind_of_secret_is_collected(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    agent = agent_with_secrets(tmp_path, monkeypatch)
    found = collect_secrets(agent, os.environ, [tmp_path / "agent.yaml"])
    for secret in (KEY, MCP_VALUE, PROCESS_TOKEN, SUBSTITUTED):
        assert secret in found


def test_the_redactor_masks_text_data_and_escaped_forms() -> None:
    redactor = Redactor([KEY, "abc", ""])  # too short to be a secret: left alone
    assert redactor.text(f"key={KEY}!") == f"key={MASK}!"
    assert redactor.data({KEY: [KEY, 1, None]}) == {MASK: [MASK, 1, None]}
    assert redactor.text('"sk_live_abc\\"123<&>"') == f'"{MASK}"'  # JSON-escaped
    assert redactor.text("sk_live_abc&quot;123&lt;&amp;&gt;") == MASK  # XML-escaped
    assert redactor.text("abc") == "abc"
    assert not Redactor([])


async def test_reports_and_cassettes_never_show_a_secret(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = agent_with_secrets(tmp_path, monkeypatch)
    leak = f"key {KEY}, mcp {MCP_VALUE}, token {PROCESS_TOKEN}, user {SUBSTITUTED}"
    backend = FakeBackend(replies={"tell me": Reply(response=leak, error=None)})
    recorder = RecordingBackend(backend, "leaky")
    report = await run_suite(agent, tmp_path, recorder)
    redactor = Redactor(collect_secrets(agent, os.environ, [tmp_path / "agent.yaml"]))
    masked = redactor.report(report)
    outputs = [
        json_report.render(masked),
        markdown.render(masked),
        junit.render(masked),
        recorder.cassette().render(redactor.data),
    ]
    for output in outputs:
        for secret in (KEY, MCP_VALUE, PROCESS_TOKEN, SUBSTITUTED):
            assert secret not in output
        assert MASK in output or "\\*\\*\\*" in output
    assert PROCESS_TOKEN in json_report.render(report)  # the unmasked report did carry it


def test_log_records_are_masked(caplog: pytest.LogCaptureFixture) -> None:
    redactor = Redactor([PROCESS_TOKEN])
    logger = logging.getLogger("holodeck_lsp.test_secrets")
    logger.addFilter(RedactingFilter(redactor))
    with caplog.at_level(logging.WARNING):
        logger.warning("sending with %s", PROCESS_TOKEN)
    assert PROCESS_TOKEN not in caplog.text and MASK in caplog.text
