"""`holodeck-lsp run` as a real process against a real backend: the installed console script,
Semantic Kernel and real function tools, with only the model replaced by the fake OpenAI
server on 127.0.0.1 (tests/fakes/openai_server.py).

The fake server runs on the test's event loop, so every child is started with
`asyncio.create_subprocess_exec` and awaited: a blocking `subprocess.run` would freeze the
server the child is talking to. Each child gets an explicit environment (PATH, HOME in
tmp_path, the API key) so nothing from the developer's environment leaks in.

Where a test checks what the run did (its reports, the requests it sent) and another test here
already starts the console script down the same path, it runs the command in this process
instead (tests/runner/in_process_cli.py, with the same environment): a child spends ~1.5 CPU-s
starting before it runs anything.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import sys
import time
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator, Mapping
from pathlib import Path

import pytest
from aiohttp import web

from holodeck_lsp.runner.cassette import comparable
from holodeck_lsp.schema.results import TestReport
from tests.fakes.openai_server import FakeOpenAIServer, Reply, ToolCall, Usage
from tests.runner.in_process_cli import Finished, run_in_process

# The console script as a process against live fake servers: seconds per test.
pytestmark = pytest.mark.slow

BIN = Path(sys.executable).parent
_found = shutil.which("holodeck-lsp", path=str(BIN))
assert _found is not None, f"holodeck-lsp is not installed next to {sys.executable}"
CLI = _found

#: Long enough to be masked (secrets shorter than 4 characters are left alone), and unique.
API_KEY = "sk-live-test-7f3a9c1e5b2d"
#: Any single child must finish within this (a hang fails the test instead of blocking CI).
#: An upper bound, never waited out by a passing test: a run of a few cases takes ~3 s on an
#: idle machine but 30 s and more on a 2-core one shared by several test processes.
CHILD_TIMEOUT = 90.0

TOOLS = '''\
def subtract(a: int, b: int) -> int:
    """Return a minus b."""
    return a - b
'''

AGENT = """\
name: live-calculator
model: {{provider: {provider}, name: {model_name}{endpoint}}}
instructions: {{inline: "Answer with the number only. Use the tools for arithmetic."}}
tools:
  - {{name: subtract, type: function, description: "a minus b", file: tools.py,
      function: subtract}}
evaluations:
  metrics:
    - {{type: standard, metric: numeric, absolute_tolerance: 0.001}}
test_cases:
{cases}"""

#: `difference` passes on both turns; `mismatch` passes turn 0 and fails turn 1 because the
#: model calls subtract with b=9 where the test expects b=8 (the answer itself is right).
SUITE = """\
  - name: difference
    turns:
      - input: "What is 206588 minus 181001?"
        ground_truth: "25587"
        expected_tools: [{name: subtract, args: {a: 206588, b: 181001}}]
      - input: "And 100 minus 85?"
        ground_truth: "15"
        expected_tools: [{name: subtract, args: {a: 100, b: 85}}]
  - name: mismatch
    turns:
      - input: "What is 10 minus 3?"
        ground_truth: "7"
        expected_tools: [subtract]
      - input: "What is 50 minus 8?"
        ground_truth: "42"
        expected_tools: [{name: subtract, args: {a: 50, b: 8}}]
"""


def tool_turn(a: int, b: int, answer: str) -> tuple[Reply, Reply]:
    """The model's two replies for one turn: call subtract(a, b), then answer."""
    return (
        Reply(tool_calls=[ToolCall("tools-subtract", {"a": a, "b": b})], usage=Usage(40, 8)),
        Reply(text=answer, usage=Usage(60, 3)),
    )


#: The whole SUITE in file order (run with --parallel 1). The failing turn's answer echoes the
#: API key, so the secret really reaches the report and the cassette unless it is masked.
SUITE_REPLIES = (
    *tool_turn(206588, 181001, "25587"),
    *tool_turn(100, 85, "15"),
    *tool_turn(10, 3, "7"),
    *tool_turn(50, 9, f"42 (computed with key {API_KEY})"),
)


def write_suite(
    folder: Path,
    cases: str = SUITE,
    *,
    provider: str = "openai",
    endpoint: str | None = None,
    model_name: str = "gpt-4o-mini",
    execution: str = "",
) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "tools.py").write_text(TOOLS, encoding="utf-8")
    path = folder / "agent.yaml"
    text = AGENT.format(
        provider=provider,
        model_name=model_name,
        endpoint=f', endpoint: "{endpoint}"' if endpoint else "",
        cases=cases,
    )
    path.write_text(text + execution, encoding="utf-8")
    return path


def child_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    # PYTHONPATH is kept: it is how a checkout under test puts itself before the installed copy.
    kept = {k: os.environ[k] for k in ("PYTHONPATH",) if k in os.environ}
    # Several tests point the agent at a closed port on purpose, to test what happens while
    # the backend starts; the endpoint check (tests/runner/backends/test_preflight.py) would stop
    # them first.
    preflight = {"HOLODECK_PREFLIGHT": "0"}
    return {"PATH": f"{BIN}:/usr/bin:/bin", "HOME": str(home), **kept, **preflight, **extra}


def live_env(tmp_path: Path, **extra: str) -> dict[str, str]:
    return child_env(tmp_path, OPENAI_API_KEY=API_KEY, **extra)


def _interruptible() -> None:
    """In the child before it execs: Ctrl-C's default. A shell without job control starts
    its background commands with SIGINT ignored, the child would inherit that, and a run
    started ignoring SIGINT keeps ignoring it (commands/run/ctrl_c.py) — the Ctrl-C tests
    would then fail only when the suite itself was started in the background."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


async def start(args: list[str], env: Mapping[str, str], cwd: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        CLI,
        "run",
        *args,
        env=dict(env),
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        preexec_fn=_interruptible,
    )


async def finish(proc: asyncio.subprocess.Process, timeout: float = CHILD_TIMEOUT) -> Finished:
    try:
        out, err = await asyncio.wait_for(proc.communicate(), timeout)
    except TimeoutError:
        proc.kill()  # this child only, by its own handle
        await proc.wait()
        raise AssertionError(f"holodeck-lsp run did not finish within {timeout}s") from None
    assert proc.returncode is not None
    return Finished(proc.returncode, out.decode("utf-8"), err.decode("utf-8"))


async def run_cli(args: list[str], env: Mapping[str, str], cwd: Path) -> Finished:
    return await finish(await start(args, env, cwd))


def read_report(path: Path) -> TestReport:
    return TestReport.model_validate_json(path.read_text(encoding="utf-8"))


def turn_verdicts(report: TestReport) -> dict[str | None, list[bool]]:
    return {case.test_name: [turn.passed for turn in case.turns or []] for case in report.results}


def assert_totals_add_up(report: TestReport) -> None:
    summary = report.summary
    counted = summary.passed + summary.failed + summary.errored + summary.not_run
    assert counted == summary.total_tests == len(report.results)
    assert summary.total_turns == sum(len(case.turns or [None]) for case in report.results)


def assert_no_secret(*texts: str) -> None:
    for text in texts:
        assert API_KEY not in text


async def wait_for_requests(
    server: FakeOpenAIServer, count: int, proc: asyncio.subprocess.Process, timeout: float
) -> None:
    """Until the server has seen `count` chat requests; fails at once if the child exits."""
    deadline = time.monotonic() + timeout
    while len(server.chat_requests) < count:
        if proc.returncode is not None:
            done = await finish(proc)
            raise AssertionError(f"holodeck-lsp exited early ({done.status}): {done.err}")
        assert time.monotonic() < deadline, (
            f"the fake server saw {len(server.chat_requests)} requests, expected {count}"
        )
        await asyncio.sleep(0.02)


# -- a full run, its reports, its cassette, and the replay -----------------------------------


async def test_a_live_run_writes_reports_and_a_cassette_that_replays_the_same(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    agent = write_suite(tmp_path / "suite", endpoint=fake_openai.base_url)
    fake_openai.script(*SUITE_REPLIES)
    out = tmp_path / "out"
    tape = out / "tape.json"
    live = await run_cli(
        [str(agent), "--record", str(tape), "--report-json", str(out / "live.json"),
         "--report-md", str(out / "live.md"), "--junit", str(out / "live.xml")],
        live_env(tmp_path),
        tmp_path,
    )  # fmt: skip

    assert live.status == 1, live.err
    assert fake_openai.pending == 0 and len(fake_openai.chat_requests) == 8
    # The key went where it belongs — to the API — and nowhere else.
    assert fake_openai.chat_requests[0].headers["authorization"] == f"Bearer {API_KEY}"

    report = read_report(out / "live.json")
    assert [case.test_name for case in report.results] == ["difference", "mismatch"]
    assert [case.passed for case in report.results] == [True, False]
    assert turn_verdicts(report) == {"difference": [True, True], "mismatch": [True, False]}
    failing = report.results[1].turns[1]  # type: ignore[index]
    assert failing.tools_matched is False and failing.tool_calls == ["tools-subtract"]
    assert failing.tool_invocations[0].args == {"a": 50, "b": 9}
    assert failing.tool_invocations[0].result == 41  # the real tool ran
    assert failing.response == "42 (computed with key ***)"
    first = report.results[0].turns[0]  # type: ignore[index]
    assert first.token_usage is not None and first.token_usage.total_tokens == 48 + 63
    assert report.summary.total_turns == 4 and report.summary.passed_turns == 3
    assert report.environment["mode"] == "record"
    assert_totals_add_up(report)

    junit = ET.fromstring((out / "live.xml").read_text(encoding="utf-8"))
    assert [s.get("name") for s in junit.iter("testsuite")] == ["difference", "mismatch"]
    assert (junit.get("tests"), junit.get("failures")) == ("4", "1")
    [failed_case] = [c for c in junit.iter("testcase") if c.find("failure") is not None]
    assert failed_case.get("classname") == "mismatch"
    assert (failed_case.get("name") or "").startswith("turn 1:")
    markdown = (out / "live.md").read_text(encoding="utf-8")
    assert "mismatch" in markdown and "What is 50 minus 8?" in markdown

    # Plain lines, one per turn, because stdout is a pipe here.
    assert "\x1b[" not in live.out
    lines = live.out.splitlines()
    for line in (
        "[1/2] difference turn 0 ✓ (1/2)",
        "[1/2] difference turn 1 ✓ (2/2)",
        "[1/2] difference PASSED (2/2 turns passed)",
        "[2/2] mismatch turn 1 ✗ (2/2)",
        "[2/2] mismatch FAILED (1/2 turns passed)",
    ):
        assert line in lines, live.out
    assert lines[-1].startswith("1 passed, 1 failed of 2 test cases (3/4 turns) in ")

    cassette = json.loads(tape.read_text(encoding="utf-8"))
    assert [c["name"] for c in cassette["cases"]] == ["difference", "mismatch"]
    assert [len(c["turns"]) for c in cassette["cases"]] == [2, 2]
    recorded_call = cassette["cases"][1]["turns"][1]["tool_calls"][0]
    assert recorded_call["name"] == "tools-subtract"
    assert recorded_call["args"] == {"a": 50, "b": 9}

    # Replay: no backend, no key, no server traffic — the same verdicts, turn by turn. (In
    # this process: the replay's result is what counts; --replay through the console script
    # is tests/cli/test_shard_merge.py's and tests/cli/test_commands.py's.)
    replayed = await run_in_process(
        [str(agent), "--replay", str(tape), "--report-json", str(out / "replay.json")],
        child_env(tmp_path),
        tmp_path,
    )
    assert replayed.status == 1, replayed.err
    assert len(fake_openai.chat_requests) == 8
    again = read_report(out / "replay.json")
    assert turn_verdicts(again) == turn_verdicts(report)
    assert again.environment["mode"] == "replay"
    assert comparable(again) == comparable(report)

    outputs = [p.read_text(encoding="utf-8") for p in sorted(out.iterdir())]
    assert_no_secret(*outputs, *live.texts(), *replayed.texts())


# -- subsets ---------------------------------------------------------------------------------


async def test_one_case_by_name(tmp_path: Path, fake_openai: FakeOpenAIServer) -> None:
    agent = write_suite(tmp_path / "suite", endpoint=fake_openai.base_url)
    fake_openai.script(*SUITE_REPLIES[4:])
    report_path = tmp_path / "r.json"
    done = await run_cli(
        [str(agent), "--case", "mismatch", "--report-json", str(report_path)],
        live_env(tmp_path),
        tmp_path,
    )
    assert done.status == 1, done.err
    report = read_report(report_path)
    assert [(case.test_name, case.test_index) for case in report.results] == [("mismatch", 1)]
    assert turn_verdicts(report) == {"mismatch": [True, False]}
    assert len(fake_openai.chat_requests) == 4 and fake_openai.pending == 0
    assert "[1/1] mismatch turn 0 ✓ (1/2)" in done.out.splitlines()
    assert_no_secret(report_path.read_text(encoding="utf-8"), *done.texts())


async def test_one_turn_sends_the_earlier_turns_as_context(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    agent = write_suite(tmp_path / "suite", endpoint=fake_openai.base_url)
    fake_openai.script(*SUITE_REPLIES[:4])
    report_path, tape = tmp_path / "r.json", tmp_path / "tape.json"
    # In this process: what it checks is what the run sent and recorded (--case through the
    # console script is test_one_case_by_name's).
    done = await run_in_process(
        [str(agent), "--case", "difference", "--turn", "1", "--report-json", str(report_path),
         "--record", str(tape)],
        live_env(tmp_path),
        tmp_path,
    )  # fmt: skip
    assert done.status == 0, done.err
    report = read_report(report_path)
    [case] = report.results
    assert [turn.turn_index for turn in case.turns or []] == [1]
    assert report.summary.total_turns == 1 and report.summary.passed_turns == 1
    # Turn 0 really went first, in the same conversation.
    assert len(fake_openai.chat_requests) == 4
    asked = json.dumps(fake_openai.chat_requests[2].messages)
    assert "What is 206588 minus 181001?" in asked and "And 100 minus 85?" in asked
    assert "[1/1] difference turn 1 ✓ (1/1)" in done.out.splitlines()
    # The cassette holds the context turn too.
    [recorded] = json.loads(tape.read_text(encoding="utf-8"))["cases"]
    assert [t["input"] for t in recorded["turns"]] == ["What is 206588 minus 181001?",
                                                       "And 100 minus 85?"]  # fmt: skip


# -- parallelism -----------------------------------------------------------------------------


class ConcurrencyTrackingServer(FakeOpenAIServer):
    """The fake server, counting how many chat requests it is answering at once."""

    def __init__(self) -> None:
        super().__init__()
        self.in_flight = 0
        self.most_in_flight = 0

    async def _handle(self, request: web.Request) -> web.StreamResponse:
        self.in_flight += 1
        self.most_in_flight = max(self.most_in_flight, self.in_flight)
        try:
            return await super()._handle(request)
        finally:
            self.in_flight -= 1


#: Three text-only cases with the same answer, so the scripted replies fit whatever order the
#: parallel cases ask in.
SAME_ANSWER = "".join(
    f'  - {{name: c{i}, input: "Say 7 ({i})", ground_truth: "7"}}\n' for i in range(3)
)


@pytest.fixture
async def tracking_server() -> AsyncIterator[ConcurrencyTrackingServer]:
    server = ConcurrencyTrackingServer()
    await server.start()
    try:
        yield server
    finally:
        await server.stop()


YAML_PARALLEL_2 = "execution: {parallel_test_cases: 2}\n"


#: Which of the cases starts the console script: the one where the flag, the environment and
#: the YAML all speak. The others run the same command with the same environment in this
#: process (the precedence is decided inside the command, not by the process around it).
REAL_PROCESS = "cli-over-all"


@pytest.mark.parametrize(
    ("args", "extra_env", "execution", "expected"),
    [
        pytest.param([], {}, "", 1, id="default"),
        pytest.param(["--parallel", "2"], {}, "", 2, id="cli"),
        pytest.param([], {"HOLODECK_PARALLEL_TEST_CASES": "2"}, "", 2, id="env"),
        # ignored
        pytest.param([], {"HOLODECK_PARALLEL_TEST_CASES": "zero"}, "", 1, id="bad-env"),
        # YAML over env
        pytest.param(
            [], {"HOLODECK_PARALLEL_TEST_CASES": "1"}, YAML_PARALLEL_2, 2, id="yaml-over-env"
        ),
        # CLI over both
        pytest.param(
            ["--parallel", "1"],
            {"HOLODECK_PARALLEL_TEST_CASES": "3"},
            YAML_PARALLEL_2,
            1,
            id=REAL_PROCESS,
        ),
    ],
)
async def test_parallelism_from_the_cli_the_yaml_or_the_environment(
    tmp_path: Path,
    tracking_server: ConcurrencyTrackingServer,
    args: list[str],
    extra_env: dict[str, str],
    execution: str,
    expected: int,
    request: pytest.FixtureRequest,
) -> None:
    agent = write_suite(
        tmp_path / "suite", SAME_ANSWER, endpoint=tracking_server.base_url, execution=execution
    )
    tracking_server.script(*[Reply(text="7", delay=0.4) for _ in range(3)])
    report_path = tmp_path / "r.json"
    real = request.node.callspec.id == REAL_PROCESS
    done = await (run_cli if real else run_in_process)(
        [str(agent), *args, "--report-json", str(report_path)],
        live_env(tmp_path, **extra_env),
        tmp_path,
    )
    assert done.status == 0, done.err
    assert tracking_server.most_in_flight == expected
    report = read_report(report_path)
    assert report.environment["parallel_test_cases"] == str(expected)
    assert [case.test_name for case in report.results] == ["c0", "c1", "c2"]  # file order
    assert all(case.passed for case in report.results)
    assert done.out.splitlines()[-1].startswith("3 passed, 0 failed of 3 test cases (3/3 turns)")


# -- Ctrl-C ----------------------------------------------------------------------------------

SLOW_SUITE = """\
  - name: slow
    turns:
      - {input: "Say 1", ground_truth: "1"}
      - {input: "Say 2", ground_truth: "2"}
      - {input: "Say 3", ground_truth: "3"}
  - {name: later, input: "Say 4", ground_truth: "4"}
"""
#: How long the fake model takes over turn 1; the run must end long before. (The fake server
#: finishes that reply after the child is gone, so this is also what the teardown waits.)
SLOW_REPLY = 6.0


async def test_ctrl_c_finishes_the_run_with_a_partial_report(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    agent = write_suite(tmp_path / "suite", SLOW_SUITE, endpoint=fake_openai.base_url)
    fake_openai.script(Reply(text="1"), Reply(text="2", delay=SLOW_REPLY), Reply(text="3"))
    report_path, tape, junit = tmp_path / "r.json", tmp_path / "tape.json", tmp_path / "r.xml"
    proc = await start(
        [str(agent), "--record", str(tape), "--report-json", str(report_path),
         "--junit", str(junit)],
        live_env(tmp_path),
        tmp_path,
    )  # fmt: skip
    try:
        # Turn 0 answered and turn 1 in flight: the server has seen its second request.
        await wait_for_requests(fake_openai, 2, proc, timeout=CHILD_TIMEOUT)
        interrupted = time.monotonic()
        proc.send_signal(signal.SIGINT)
        done = await finish(proc, timeout=SLOW_REPLY)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert time.monotonic() - interrupted < SLOW_REPLY / 2  # it did not wait for the model
    assert len(fake_openai.chat_requests) == 2  # nothing was sent after Ctrl-C

    # Nothing failed: the cases the Ctrl-C cut short are not run, not failed (exit 4: not
    # fully measured), and the first Ctrl-C said so at once.
    assert done.status == 4, done.err
    assert "cancelling… (Ctrl-C again to stop now)" in done.err
    assert "Traceback" not in done.err and "KeyboardInterrupt" not in done.err
    report = read_report(report_path)
    assert report.environment["cancelled"] == "true"
    slow, later = report.results
    assert [turn.passed for turn in slow.turns or []] == [True, False, False]
    for turn in (slow.turns or [])[1:]:
        assert turn.skipped and turn.errors == ["skipped: cancelled"]
    assert not later.passed and later.errors == ["skipped: cancelled"]
    assert report.summary.passed == 0 and report.summary.failed == 0
    assert report.summary.not_run == 2
    assert report.summary.total_turns == 4 and report.summary.passed_turns == 1
    assert_totals_add_up(report)
    assert "0 passed, 0 failed, 2 not run of 2" in done.out.splitlines()[-1]
    assert "(cancelled)" in done.out.splitlines()[-1]
    assert "[1/2] slow turn 0 ✓ (1/3)" in done.out.splitlines()
    ET.fromstring(junit.read_text(encoding="utf-8"))

    # The cassette holds what was answered; the abandoned turn never happened.
    cassette = json.loads(tape.read_text(encoding="utf-8"))
    recorded = {case["name"]: [t["input"] for t in case["turns"]] for case in cassette["cases"]}
    assert recorded == {"slow": ["Say 1"]}  # `later` never opened a session
    assert_no_secret(tape.read_text(), report_path.read_text(), *done.texts())

    # The history keeps the partial run, marked so, with the turns that never ran skipped.
    from holodeck_lsp.runner.run_history import list_runs, runs_folder

    [stored] = list_runs(runs_folder(agent))
    assert stored.meta.interrupted and stored.meta.turns.passed == 1
    partial = stored.load_report()
    assert partial.interrupted and partial.run_id == stored.id
    assert read_report(report_path).interrupted  # the --report-json output says so too
    assert [turn.skipped for turn in partial.results[0].turns or []] == [False, True, True]
    assert partial.results[1].errors == ["skipped: cancelled"]
    assert [c.name for c in stored.load_recording().cases] == ["slow"]
    assert_no_secret(*(p.read_text() for p in stored.folder.iterdir()))


def slow_tools(folder: Path, marker: Path, seconds: float) -> None:
    """tools.py that says it is being imported (the backend is starting), then takes a while."""
    (folder / "tools.py").write_text(
        f"import pathlib, time\n\npathlib.Path({str(marker)!r}).touch()\ntime.sleep({seconds})\n\n"
        + TOOLS,
        encoding="utf-8",
    )


async def wait_for_file(marker: Path, proc: asyncio.subprocess.Process) -> None:
    deadline = time.monotonic() + CHILD_TIMEOUT
    while not marker.exists():
        assert proc.returncode is None, (await finish(proc)).err
        assert time.monotonic() < deadline, f"{marker} was never created"
        await asyncio.sleep(0.02)


async def test_ctrl_c_while_the_backend_starts_still_writes_a_cancelled_report(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    agent = write_suite(tmp_path / "suite", SLOW_SUITE, endpoint=fake_openai.base_url)
    marker = tmp_path / "importing-tools"
    slow_tools(agent.parent, marker, 0.5)
    report_path, tape = tmp_path / "r.json", tmp_path / "tape.json"
    proc = await start(
        [str(agent), "--report-json", str(report_path), "--record", str(tape)],
        live_env(tmp_path),
        tmp_path,
    )
    try:
        await wait_for_file(marker, proc)
        proc.send_signal(signal.SIGINT)
        done = await finish(proc)
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert done.status == 4, done.err  # nothing ran, nothing failed: not run
    assert "Traceback" not in done.err
    assert fake_openai.chat_requests == []
    report = read_report(report_path)
    assert report.environment["cancelled"] == "true"
    turns = [turn for case in report.results for turn in case.turns or []]
    assert len(turns) == 3 and all(turn.errors == ["skipped: cancelled"] for turn in turns)
    assert report.results[1].errors == ["skipped: cancelled"]
    assert_totals_add_up(report)
    assert json.loads(tape.read_text(encoding="utf-8"))["cases"] == []


async def test_a_second_ctrl_c_interrupts_at_once(tmp_path: Path) -> None:
    agent = write_suite(tmp_path / "suite", SLOW_SUITE, endpoint="http://127.0.0.1:9")
    marker = tmp_path / "importing-tools"
    slow_tools(agent.parent, marker, CHILD_TIMEOUT)
    report_path = tmp_path / "r.json"
    proc = await start(
        [str(agent), "--report-json", str(report_path)], live_env(tmp_path), tmp_path
    )
    try:
        await wait_for_file(marker, proc)
        proc.send_signal(signal.SIGINT)
        await asyncio.sleep(0.2)
        proc.send_signal(signal.SIGINT)
        done = await finish(proc, timeout=5)  # not the CHILD_TIMEOUT the tools module sleeps
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
    assert done.status == -signal.SIGINT  # Python's own KeyboardInterrupt exit
    assert not report_path.exists()


# -- no usable backend -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("provider", "model_name", "variable", "real_process"),
    [
        # In this process (the same command and environment; the OpenAI backend's imports
        # cost a child ~1.5 CPU-s before it gets to the key): the message is the command's.
        ("openai", "gpt-4o-mini", "OPENAI_API_KEY", False),
        ("anthropic", "claude-sonnet-4-5", "ANTHROPIC_API_KEY", True),  # the console script's
    ],
    ids=["openai-gpt-4o-mini-OPENAI_API_KEY", "anthropic-claude-sonnet-4-5-ANTHROPIC_API_KEY"],
)
async def test_a_missing_api_key_exits_3_naming_what_to_set(
    tmp_path: Path, provider: str, model_name: str, variable: str, real_process: bool
) -> None:
    agent = write_suite(
        tmp_path / "suite", provider=provider, model_name=model_name, endpoint="http://127.0.0.1:9"
    )
    report_path = tmp_path / "r.json"
    done = await (run_cli if real_process else run_in_process)(
        [str(agent), "--report-json", str(report_path)], child_env(tmp_path), tmp_path
    )
    assert done.status == 3, (done.out, done.err)
    assert f"holodeck-lsp: error: provider {provider} needs an API key" in done.err
    assert variable in done.err
    assert "Traceback" not in done.err
    assert not report_path.exists()
    # Only the first line, printed before the backend starts.
    assert done.out.startswith("running ") and done.out.count("\n") == 1
