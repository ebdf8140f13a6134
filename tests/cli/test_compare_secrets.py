"""`run --baseline` prints a comparison of this run's results — a new way results leave a
run — so it goes through the run's masking: the leaky suite (tests/fakes/leaky_suite.py) run
against a baseline where every case passed, so each case's new failure reason (a backend error
quoting the API key) is printed."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.schema.results import ReportSummary, TestReport, TestResult
from tests.fakes.leaky_suite import (
    ENV,
    MASK,
    assert_masked,
    leaky_replies,
    write_leaky_suite,
)
from tests.fakes.openai_server import FakeOpenAIServer
from tests.runner.test_run_cli_live import child_env, run_cli

pytestmark = pytest.mark.slow  # a run of the console script

INPUTS = {"tool-echo": "Show the key", "instructions": "What is the code word?",
          "backend-error": "Anything"}  # fmt: skip


def passing_baseline(agent: Path) -> TestReport:
    results = [
        TestResult(
            test_name=name, test_index=index, test_input=text, agent_response="ok", passed=True
        )
        for index, (name, text) in enumerate(INPUTS.items())
    ]
    return TestReport(
        agent_name="leaky",
        agent_config_path=str(agent),
        results=results,
        summary=ReportSummary(total_tests=3, passed=3, failed=0, pass_rate=100.0),
        timestamp="2026-12-01T00:00:00+00:00",
        holodeck_version="test",
    )


async def test_the_comparison_after_a_run_is_masked(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    agent = write_leaky_suite(tmp_path / "suite", f"{fake_openai.base_url}/v1")
    fake_openai.script(*leaky_replies())
    baseline = tmp_path / "baseline.json"
    baseline.write_text(passing_baseline(agent).model_dump_json(), encoding="utf-8")
    done = await run_cli(
        [str(agent), "--parallel", "1", "--no-save", "--baseline", str(baseline)],
        child_env(tmp_path, **ENV),
        tmp_path,
    )
    assert done.status == 1, done.err  # backend-error regressed
    assert "Regressions (" in done.out
    [reason] = [line.strip() for line in done.out.splitlines() if line.strip().startswith("now: ")]
    assert "Incorrect API key" in reason and MASK in reason
    assert_masked(done.out, done.err)
