"""Errored is not failed: a turn the provider could not answer (429 after the retries, 503,
a dropped connection) is `errored` in the report, counted apart, left out of the pass rate,
rendered as such by every report and never a regression in `compare`.

Real parts: the Semantic Kernel backend against the loopback OpenAI fake with injected
faults, the real executor, the real renderers."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.commands.console.closing_lines import totals_line
from holodeck_lsp.commands.run.run_status import run_status
from holodeck_lsp.engine.run_comparison import compare_reports
from holodeck_lsp.exit_codes import EXIT_ERRORED, EXIT_TEST_FAILED
from holodeck_lsp.reports.run import html, junit, markdown
from holodeck_lsp.runner.agent_code.function_tools import load_function_tools
from holodeck_lsp.runner.backends.semantic_kernel_backend import SemanticKernelBackend
from holodeck_lsp.runner.execution.executor import RunOptions, run_suite
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.comparison import RunRef
from holodeck_lsp.schema.results import TestReport
from tests.fakes.faults import FaultPlan
from tests.fakes.openai_server import FakeOpenAIServer, Reply

SUITE = """\
name: weather
model: {{provider: openai, name: gpt-fake, endpoint: "{endpoint}"}}
instructions: {{inline: "Answer."}}
evaluations:
  metrics:
    - type: standard
      metric: equality
test_cases:
  - name: first
    turns:
      - {{input: "one", ground_truth: "1"}}
      - {{input: "two", ground_truth: "2"}}
  - {{name: second, input: "three", ground_truth: "3"}}
  - {{name: third, input: "four", ground_truth: "4"}}
"""


def _agent(tmp_path: Path, server: FakeOpenAIServer) -> Agent:
    text = SUITE.format(endpoint=f"{server.base_url}/v1")
    loaded = load_agent_text(text, tmp_path / "agent.yaml", LoadOptions(home=tmp_path, env={}))
    assert loaded.agent is not None, [d.message for d in loaded.diagnostics]
    return loaded.agent


async def _run(tmp_path: Path, server: FakeOpenAIServer) -> TestReport:
    agent = _agent(tmp_path, server)
    backend = SemanticKernelBackend(
        agent, load_function_tools(agent, tmp_path), {"OPENAI_API_KEY": "sk-x"}, max_retries=0
    )
    try:
        return await run_suite(agent, tmp_path, backend, options=RunOptions(parallel=1))
    finally:
        await backend.aclose()


def _answer_numbers(body: dict[str, object]) -> Reply:
    words = {"one": "1", "two": "2", "three": "3", "four": "4"}
    messages = body["messages"]
    assert isinstance(messages, list)
    return Reply(text=words.get(str(messages[-1]["content"]), "?"))


async def test_provider_faults_are_errored_not_failed(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = _answer_numbers
    # Turn 1 of `first` meets a 429, `second` a 503; `third` is answered.
    fake_openai.faults = FaultPlan(scripted=[])
    report_clean = await _run(tmp_path, fake_openai)
    assert report_clean.summary.passed == 3 and report_clean.summary.errored == 0

    fake_openai.faults = FaultPlan(scripted=["slow", "429", "503"], slow_seconds=0.01)
    report = await _run(tmp_path, fake_openai)
    first, second, third = report.results
    assert first.turns is not None
    assert first.turns[0].passed and first.turns[1].errored and not first.turns[1].passed
    assert "429" in first.turns[1].errors[0]
    assert first.errored and second.errored and not third.errored and third.passed
    summary = report.summary
    assert (summary.passed, summary.failed, summary.errored) == (1, 0, 2)
    assert summary.pass_rate == 100.0  # of the measured cases
    assert summary.errored_turns == 2
    assert run_status(summary) == EXIT_ERRORED
    assert "1 passed, 0 failed, 2 errored of 3 test cases" in totals_line(report, 1.0, None)

    xml = ET.fromstring(junit.render(report))
    assert xml.get("errors") == "2" and xml.get("failures") == "0"
    errors = xml.findall(".//testcase/error")
    assert len(errors) == 2 and all(e.get("type") == "provider" for e in errors)
    md = markdown.render(report)
    assert "⚠ errored" in md and "2 errored (not measured)" in md
    # The HTML page draws its tiles and turn verdicts from its embedded data (page.js:
    # `sum-cases-errored`, `sum-turns-errored`, a turn's `v`); the drawing is the browser
    # test's (tests/e2e/test_html_report_browser.py).
    [column] = _page_data(html.render(report))["runs"]
    counts = column["summary"]
    assert (counts["passed"], counts["failed"], counts["errored"]) == (1, 0, 2)
    assert counts["turns_errored"] == 2
    first_page, second_page, third_page = column["cases"]
    assert first_page["errored"] and second_page["errored"] and "errored" not in third_page
    assert [turn.get("v", "passed") for turn in first_page["turns"]] == ["passed", "errored"]
    assert second_page["turns"][0]["v"] == "errored"

    # Against the clean run an errored turn is not measured, never a regression.
    comparison = compare_reports(
        report_clean, report, base_ref=RunRef(label="clean"), head_ref=RunRef(label="weather")
    )
    assert not comparison.has_regressions


async def test_a_wrong_answer_still_fails_beside_an_errored_case(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = lambda body: Reply(text="wrong")
    fake_openai.faults = FaultPlan(scripted=["drop"])
    report = await _run(tmp_path, fake_openai)
    first = report.results[0]
    assert first.turns is not None and first.turns[0].errored
    # Turn 1 was answered wrongly: the case failed (a measured verdict wins).
    assert not first.errored and not first.passed
    assert report.summary.failed == 3 and report.summary.errored == 0
    assert run_status(report.summary) == EXIT_TEST_FAILED


def _page_data(page: str) -> dict[str, Any]:
    """The data an HTML report embeds for its script to draw."""
    match = re.search(
        r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S
    )
    assert match is not None
    data: dict[str, Any] = json.loads(match.group(1))
    return data
