"""`run --max-cost USD` / `--max-turns N` through the real console script against the loopback
OpenAI fake: the run stops starting cases when the budget would be passed, the cases in
flight finish, the reason is printed and stored, the exit status is 4 (not fully measured),
and the closing line and JSON report carry the cost at the price list.

The fake runs on the test's loop, so the child is awaited with asyncio (a blocking
`subprocess.run` would freeze the server it talks to)."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from holodeck_lsp.exit_codes import EXIT_CANNOT_RUN, EXIT_ERRORED, EXIT_TEST_FAILED
from tests.fakes.openai_server import FakeOpenAIServer, Reply, Usage

pytestmark = pytest.mark.slow

SCRIPT = str(Path(sys.executable).parent / "holodeck-lsp")
CASES = 10


def _suite(tmp_path: Path, server: FakeOpenAIServer, model: str = "gpt-4o-mini") -> Path:
    lines = [
        "name: budgeted",
        f'model: {{provider: openai, name: {model}, endpoint: "{server.base_url}/v1"}}',
        'instructions: {inline: "Echo."}',
        "evaluations:",
        "  metrics:",
        "    - {type: standard, metric: equality}",
        "test_cases:",
    ]
    lines += [f'  - {{name: c{n}, input: "n{n}", ground_truth: "n{n}"}}' for n in range(CASES)]
    path = tmp_path / "agent.yaml"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _house_priced_suite(tmp_path: Path, server: FakeOpenAIServer) -> None:
    """The echo suite on a model the shipped list has no price for, priced in
    holodeck-lsp.yaml: 15 tokens a turn at 1,000 USD per million is 0.015 USD a turn."""
    server.responder = _echo
    _suite(tmp_path, server, model="gpt-house")
    (tmp_path / "holodeck-lsp.yaml").write_text(
        "prices:\n  openai:gpt-house: {input: 1000, output: 1000}\n", encoding="utf-8"
    )


def _echo(body: dict[str, object]) -> Reply:
    messages = body["messages"]
    assert isinstance(messages, list)
    return Reply(text=str(messages[-1]["content"]), usage=Usage(10, 5))


async def _run(tmp_path: Path, *args: str, save: bool = False) -> tuple[int, str, str]:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(tmp_path), "OPENAI_API_KEY": "sk-k"}
    kept = () if save else ("--no-save",)
    proc = await asyncio.create_subprocess_exec(
        SCRIPT, "run", "agent.yaml", *kept, "--report-json", "out.json", *args,
        cwd=tmp_path, env=env,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip
    out, err = await asyncio.wait_for(proc.communicate(), timeout=60)
    assert proc.returncode is not None
    return proc.returncode, out.decode(), err.decode()


def _report(tmp_path: Path) -> dict[str, object]:
    data = json.loads((tmp_path / "out.json").read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


async def test_max_turns_stops_starting_cases_and_says_why(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = _echo
    _suite(tmp_path, fake_openai)
    status, out, err = await _run(tmp_path, "--max-turns", "3", "--parallel", "1")
    assert status == EXIT_ERRORED, (out, err)
    reason = "stopped: --max-turns 3 would be passed after 3 of 10 cases"
    assert reason in out
    assert len(fake_openai.chat_requests) == 3  # never more turns than the budget
    report = _report(tmp_path)
    assert report["stop_reason"] == reason and report["interrupted"] is True
    results = report["results"]
    assert isinstance(results, list)
    # The cases never started are left out (a resumed run adds them).
    assert [r["test_name"] for r in results] == ["c0", "c1", "c2"]
    summary = report["summary"]
    assert isinstance(summary, dict)
    # 3 turns of 10 prompt + 5 completion tokens at gpt-4o-mini's 0.15 / 0.60 USD per million
    assert summary["cost_usd"] == pytest.approx(3 * (10 * 0.15 + 5 * 0.60) / 1e6)
    line = (
        "agent tokens: 45 (30 prompt, 15 completion); cost 0.000013 USD (prices as of 2026-12-01)"
    )
    assert line in out


async def test_max_cost_estimates_then_a_resumed_run_keeps_to_the_whole_runs_budget(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    """The budgeted run, then resumed twice: one run (saved, so it can be resumed) carries both
    what --max-cost stops and what a resume counts."""
    _house_priced_suite(tmp_path, fake_openai)
    status, out, err = await _run(tmp_path, "--max-cost", "0.05", "--parallel", "1", save=True)
    # --max-cost estimates from the cost per turn so far.
    assert status == EXIT_ERRORED, (out, err)
    # After 3 turns 0.045 USD is spent; a fourth would make 0.060 > 0.05.
    assert "stopped: --max-cost 0.05 USD would be passed after 3 of 10 cases" in out
    assert len(fake_openai.chat_requests) == 3
    summary = _report(tmp_path)["summary"]
    assert isinstance(summary, dict)
    assert summary["cost_usd"] == pytest.approx(0.045) and summary["cost_usd"] <= 0.05

    # A resumed run keeps to the whole run's budget. The same budget again: the journal's
    # 0.045 USD counts, so not one case more.
    status, out, err = await _run(
        tmp_path, "--resume", "--max-cost", "0.05", "--parallel", "1", save=True
    )
    assert status == EXIT_ERRORED, (out, err)
    assert "stopped: --max-cost 0.05 USD would be passed" in out
    assert len(fake_openai.chat_requests) == 3
    # A raised budget: 0.045 spent and 0.015 a turn leave room for three more turns.
    status, out, err = await _run(
        tmp_path, "--resume", "--max-cost", "0.095", "--parallel", "1", save=True
    )
    assert status == EXIT_ERRORED, (out, err)
    assert len(fake_openai.chat_requests) == 6
    report = _report(tmp_path)
    results = report["results"]
    assert isinstance(results, list)
    assert [r["test_name"] for r in results] == [f"c{n}" for n in range(6)]
    summary = report["summary"]
    assert isinstance(summary, dict)
    assert summary["cost_usd"] == pytest.approx(0.09)


async def test_a_failed_case_still_wins_over_the_stop(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = lambda body: Reply(text="wrong", usage=Usage(10, 5))
    _suite(tmp_path, fake_openai)
    status, out, _ = await _run(tmp_path, "--max-turns", "2", "--parallel", "1")
    assert status == EXIT_TEST_FAILED
    assert "0 passed, 2 failed of 2 test cases" in out and "stopped: --max-turns 2" in out


async def test_max_cost_without_a_price_is_refused_with_the_fix(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = _echo
    _suite(tmp_path, fake_openai, model="gpt-house")
    status, _, err = await _run(tmp_path, "--max-cost", "1")
    assert status == EXIT_CANNOT_RUN
    assert "--max-cost needs a price for openai:gpt-house" in err and "prices:" in err
    assert "Traceback" not in err
    assert fake_openai.chat_requests == []


async def test_without_a_price_the_cost_is_said_to_be_not_computed(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = _echo
    _suite(tmp_path, fake_openai, model="gpt-house")
    status, out, _ = await _run(tmp_path, "--parallel", "4")
    assert status == 0
    assert "cost not computed (no price for openai:gpt-house)" in out
    summary = _report(tmp_path)["summary"]
    assert isinstance(summary, dict) and summary["cost_usd"] is None


def test_help_lists_the_budgets() -> None:
    import subprocess

    done = subprocess.run([SCRIPT, "run", "--help"], capture_output=True, text=True, check=True)
    assert "--max-cost USD" in done.stdout and "--max-turns N" in done.stdout
    bad = subprocess.run([SCRIPT, "run", ".", "--max-cost", "-2"], capture_output=True, text=True)
    assert bad.returncode == 2 and "positive amount in USD" in bad.stderr
