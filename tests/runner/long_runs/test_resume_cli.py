"""`holodeck-lsp run --resume` as a real process against the loopback OpenAI fake: a run
killed with SIGKILL at seeded random points (or stopped by Ctrl-C) and then resumed ends with
the same report as a run never interrupted — same verdicts, same order, one run id — timing
fields aside. Also: a changed agent file refuses the resume unless --force, --retry-errored
runs only the errored cases again, matrices and repeats resume, and `runs` / `report` say a
run is unfinished."""

from __future__ import annotations

import asyncio
import json
import random
import signal
from pathlib import Path
from typing import Any

import pytest

from tests.fakes.faults import FaultPlan
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.runner.test_run_cli_live import (
    child_env,
    finish,
    run_cli,
    start,
    wait_for_requests,
)

KEY = "sk-resume-7c1f0b2e9d"
CASES = 8
AGENT = """\
name: resumable
model: {{provider: openai, name: gpt-fake, endpoint: "{endpoint}"}}
instructions: {{inline: "Repeat the number."}}
evaluations:
  metrics:
    - {{type: standard, metric: equality}}
test_cases:
{cases}
"""
#: Every case but one passes: a verdict that differs after a resume would show.
WRONG = 5


def _write_agent(folder: Path, server: FakeOpenAIServer) -> Path:
    cases = "\n".join(
        f'  - {{name: "case{n}", input: "{n}", ground_truth: "{n}"}}' for n in range(CASES)
    )
    path = folder / "agent.yaml"
    path.write_text(AGENT.format(endpoint=f"{server.base_url}/v1", cases=cases), "utf-8")
    return path


def _answering(server: FakeOpenAIServer, delay: float) -> None:
    def reply(body: dict[str, Any]) -> Reply:
        asked = str(body["messages"][-1]["content"])
        return Reply(text="wrong" if asked == str(WRONG) else asked, delay=delay)

    server.responder = reply


def _env(tmp_path: Path) -> dict[str, str]:
    return child_env(tmp_path, OPENAI_API_KEY=KEY)


#: Besides every `*_ms` field: what differs between two runs of the same answers.
_TIMING = {"timestamp", "run_id", "environment", "agent_config_path"}


def _stripped(value: Any) -> Any:
    """The report without what differs between two runs of the same answers: times, the id,
    the environment (wall times, parallelism), the folder it ran in."""
    if isinstance(value, dict):
        return {
            k: _stripped(v) for k, v in value.items() if k not in _TIMING and not k.endswith("_ms")
        }
    if isinstance(value, list):
        return [_stripped(v) for v in value]
    return value


def _report(path: Path) -> dict[str, Any]:
    loaded: dict[str, Any] = json.loads(path.read_text("utf-8"))
    return loaded


def _runs(folder: Path) -> list[Path]:
    return sorted(p for p in (folder / ".holodeck" / "runs").iterdir() if p.is_dir())


async def _reference(tmp_path: Path, server: FakeOpenAIServer, *extra: str) -> dict[str, Any]:
    folder = tmp_path / "reference"
    folder.mkdir()
    path = _write_agent(folder, server)
    out = folder / "report.json"
    done = await run_cli([str(path), "--report-json", str(out), *extra], _env(tmp_path), folder)
    assert done.status == 1, done.err
    return _report(out)


@pytest.mark.slow
async def test_killed_at_random_points_then_resumed_equals_an_uninterrupted_run(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    _answering(fake_openai, delay=0.15)
    reference = await _reference(tmp_path, fake_openai, "--parallel", "2")
    chooser = random.Random(25)
    for attempt, kill_after in enumerate(sorted(chooser.sample(range(1, CASES), 3))):
        folder = tmp_path / f"killed{attempt}"
        folder.mkdir()
        path = _write_agent(folder, fake_openai)
        fake_openai.requests.clear()
        proc = await start([str(path), "--parallel", "2"], _env(tmp_path), folder)
        await wait_for_requests(fake_openai, kill_after, proc, timeout=30)
        proc.send_signal(signal.SIGKILL)  # this child only, by its own handle
        await proc.wait()
        (run,) = _runs(folder)
        assert not (run / "run.json").exists()  # killed: nothing but the journal
        out = folder / "report.json"
        resumed = await run_cli(
            [str(path), "--resume", "--report-json", str(out)], _env(tmp_path), folder
        )
        assert resumed.status == 1, resumed.err
        assert f"resuming run {run.name}" in resumed.out
        report = _report(out)
        assert report["run_id"] == run.name and not report["interrupted"]
        assert _stripped(report) == _stripped(reference)
        assert _runs(folder) == [run]  # one run, one id
        stored = json.loads((run / "run.json").read_text("utf-8"))
        assert stored["interrupted"] is False and stored["cases"] == {"passed": 7, "total": 8}


async def test_ctrl_c_leaves_a_resumable_run_that_runs_and_report_call_unfinished(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    _answering(fake_openai, delay=0.3)
    path = _write_agent(tmp_path, fake_openai)
    proc = await start([str(path)], _env(tmp_path), tmp_path)
    await wait_for_requests(fake_openai, 2, proc, timeout=30)
    proc.send_signal(signal.SIGINT)
    stopped = await finish(proc)
    (run,) = _runs(tmp_path)
    assert f"resume with `holodeck-lsp run --resume {run.name}`" in stopped.out, stopped.out
    runs = await _command(["runs", str(path)], tmp_path)
    assert "unfinished" in runs and f"holodeck-lsp run --resume {run.name}" in runs
    report = await _command(
        ["report", run.name, "--agent", str(path), "--md", str(tmp_path / "r.md")], tmp_path
    )
    assert f"run {run.name} is unfinished" in report and "--resume" in report
    _answering(fake_openai, delay=0.0)
    out = tmp_path / "report.json"
    done = await run_cli([str(path), "--resume", run.name, "--report-json", str(out)],
                         _env(tmp_path), tmp_path)  # fmt: skip
    assert done.status == 1, done.err
    final = _report(out)
    assert final["run_id"] == run.name and not final["interrupted"]
    assert [r["passed"] for r in final["results"]] == [n != WRONG for n in range(CASES)]
    assert KEY not in (run / "journal.jsonl").read_text("utf-8")


async def test_a_changed_agent_file_refuses_the_resume_unless_forced(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    _answering(fake_openai, delay=0.3)
    path = _write_agent(tmp_path, fake_openai)
    proc = await start([str(path)], _env(tmp_path), tmp_path)
    await wait_for_requests(fake_openai, 2, proc, timeout=30)
    proc.send_signal(signal.SIGKILL)
    await proc.wait()
    path.write_text(path.read_text("utf-8").replace("Repeat the number.", "Repeat it."), "utf-8")
    _answering(fake_openai, delay=0.0)
    refused = await run_cli([str(path), "--resume"], _env(tmp_path), tmp_path)
    assert refused.status == 2
    assert "agent.yaml changed since it started" in refused.err and "--force" in refused.err
    assert "Traceback" not in refused.err
    forced = await run_cli([str(path), "--resume", "--force"], _env(tmp_path), tmp_path)
    assert forced.status == 1, forced.err
    assert "--force: agent.yaml changed" in forced.out


async def test_retry_errored_runs_only_the_errored_cases_again(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    _answering(fake_openai, delay=0.0)
    path = _write_agent(tmp_path, fake_openai)
    # Requests 3 and 6 (cases 2 and 5 with one case at a time) meet a 503 with no retries.
    # ("slow" with no delay: an ordinary answer in the script's place.)
    fake_openai.faults = FaultPlan(
        scripted=["slow", "slow", "503", "slow", "slow", "503"], slow_seconds=0.0
    )
    first = await run_cli([str(path), "--retry-budget", "0"], _env(tmp_path), tmp_path)
    assert first.status == 4, first.out + first.err
    (run,) = _runs(tmp_path)
    fake_openai.faults = None
    fake_openai.requests.clear()
    out = tmp_path / "report.json"
    again = await run_cli(
        [str(path), "--resume", run.name, "--retry-errored", "--report-json", str(out)],
        _env(tmp_path),
        tmp_path,
    )
    assert again.status == 1, again.err
    asked = sorted(str(r.body["messages"][-1]["content"]) for r in fake_openai.chat_requests)
    assert asked == ["2", "5"]
    final = _report(out)
    assert final["summary"]["errored"] == 0
    assert [r["passed"] for r in final["results"]] == [n != WRONG for n in range(CASES)]


@pytest.mark.slow
async def test_a_matrix_with_repeats_resumes_to_the_uninterrupted_report(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    _answering(fake_openai, delay=0.1)
    matrix = ["--model", "openai:gpt-a", "--model", "openai:gpt-b", "--repeat", "2"]
    reference = await _reference(tmp_path, fake_openai, *matrix)
    folder = tmp_path / "killed"
    folder.mkdir()
    path = _write_agent(folder, fake_openai)
    fake_openai.requests.clear()
    proc = await start([str(path), *matrix], _env(tmp_path), folder)
    await wait_for_requests(fake_openai, 13, proc, timeout=30)
    proc.send_signal(signal.SIGKILL)
    await proc.wait()
    out = folder / "report.json"
    resumed = await run_cli([str(path), "--resume", "--report-json", str(out)],
                            _env(tmp_path), folder)  # fmt: skip
    assert resumed.status == 1, resumed.err
    assert "of 32 case sessions left" in resumed.out
    assert _stripped(_report(out)) == _stripped(reference)


async def _command(argv: list[str], cwd: Path) -> str:
    from tests.runner.test_run_cli_live import CLI

    proc = await asyncio.create_subprocess_exec(
        CLI, *argv, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.STDOUT
    )
    out, _ = await asyncio.wait_for(proc.communicate(), 60)
    return out.decode("utf-8")
