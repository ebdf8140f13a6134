"""The first Ctrl-C of `holodeck-lsp run`, as a real process against the loopback OpenAI fake:
it says `cancelling… (Ctrl-C again to stop now)` at once; the command exits within 2 s plus
the bounded wait for cases in flight (IN_FLIGHT_GRACE, runner/execution/executor.py), even
with a grader that would sleep for a minute; a case that finishes during that wait is
journaled and passes; the abandoned one counts as **not run**, apart from failed, in the
console, the JSON report and the exit status (4: not fully measured)."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from pathlib import Path

import pytest

from holodeck_lsp.runner.execution.executor import IN_FLIGHT_GRACE
from tests.cli.test_pasted_hints import paste
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.runner.test_run_cli_live import child_env, finish, start

pytestmark = pytest.mark.slow

KEY = "sk-ctrlc-8a3f1e6b2d"
AGENT = """\
name: interrupted
model: {{provider: openai, name: gpt-fake, endpoint: "{endpoint}"}}
instructions: {{inline: "Repeat."}}
evaluations:
  metrics:
    - {{type: code, grader: "graders:check"}}
test_cases:
  - {{name: quick, input: "quick"}}
  - {{name: late, input: "late"}}
  - {{name: stuck, input: "stuck"}}
"""
GRADERS = """\
import pathlib, time

SLEEP = {{"quick": 0.0, "late": 1.0, "stuck": 60.0}}


def check(ctx):
    pathlib.Path({markers!r}, ctx.test_case_name).touch()
    time.sleep(SLEEP[ctx.test_case_name])
    return True
"""


async def _wait_for(paths: list[Path], proc: asyncio.subprocess.Process) -> None:
    deadline = time.monotonic() + 30
    while not all(path.exists() for path in paths):
        assert proc.returncode is None, (await finish(proc)).err
        assert time.monotonic() < deadline, f"never created: {paths}"
        await asyncio.sleep(0.02)


async def _line_containing(stream: asyncio.StreamReader, text: str, timeout: float) -> str:
    seen = b""
    deadline = time.monotonic() + timeout
    while text.encode("utf-8") not in seen:
        left = deadline - time.monotonic()
        assert left > 0, f"{text!r} not said within {timeout}s: {seen.decode('utf-8')}"
        chunk = await asyncio.wait_for(stream.read(4096), left)
        assert chunk, f"stream ended without {text!r}: {seen.decode('utf-8')}"
        seen += chunk
    return seen.decode("utf-8")


async def test_the_first_ctrl_c_says_so_waits_boundedly_and_keeps_what_finished(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    fake_openai.responder = lambda body: Reply(text="ok")
    suite = tmp_path / "suite"
    markers = tmp_path / "grading"
    suite.mkdir()
    markers.mkdir()
    (suite / "graders.py").write_text(GRADERS.format(markers=str(markers)), "utf-8")
    agent = suite / "agent.yaml"
    agent.write_text(AGENT.format(endpoint=f"{fake_openai.base_url}/v1"), "utf-8")
    report = tmp_path / "r.json"
    proc = await start(
        [str(agent), "--parallel", "3", "--report-json", str(report)],
        child_env(tmp_path, OPENAI_API_KEY=KEY),
        tmp_path,
    )
    try:
        await _wait_for([markers / "quick", markers / "late", markers / "stuck"], proc)
        pressed = time.monotonic()
        proc.send_signal(signal.SIGINT)
        assert proc.stderr is not None
        said = await _line_containing(proc.stderr, "cancelling… (Ctrl-C again to stop now)", 1.0)
        rest = await finish(proc, timeout=2 + IN_FLIGHT_GRACE + 5)
        took = time.monotonic() - pressed
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert took < 2 + IN_FLIGHT_GRACE, f"exited {took:.1f}s after Ctrl-C"
    assert rest.status == 4, said + rest.err  # not fully measured; nothing failed
    assert "Traceback" not in said + rest.err
    last = rest.out.rstrip().splitlines()[-1]
    assert last.startswith("2 passed, 0 failed, 1 not run of 3 test cases"), rest.out
    summary = json.loads(report.read_text("utf-8"))["summary"]
    assert (summary["passed"], summary["failed"], summary["not_run"]) == (2, 0, 1)
    # `late` finished after the Ctrl-C, within the wait: journaled, so a resume keeps it.
    (journal,) = (suite / ".holodeck" / "runs").glob("*/journal.jsonl")
    cases = [json.loads(line) for line in journal.read_text("utf-8").splitlines()[1:]]
    assert sorted(case["result"]["test_name"] for case in cases) == ["late", "quick"]
    # The history counts it apart too.
    status, listed = await paste(f"holodeck-lsp runs {agent}", tmp_path, child_env(tmp_path))
    assert status == 0 and "1 not run" in listed, listed
