"""`holodeck-lsp run --resume` as a real process against the loopback OpenAI fake: a run
killed with SIGKILL at seeded random points (or stopped by Ctrl-C) and then resumed ends with
the same reports (JSON, Markdown, JUnit), run.json and `runs --json` entry as a run never
interrupted — same verdicts, same order, one run id — timing fields aside, and the resumed
process sends only the requests of the cases its journal lacks. The kill points are random,
from a seed printed on failure (`HOLODECK_RESUME_SEED=N` repeats one). Also: a changed agent
file refuses the resume unless --force, --retry-errored runs only the errored cases again,
matrices and repeats resume, and `runs` / `report` say a run is unfinished.

The killed runs are real processes (a SIGKILL needs one); the reference runs, the resumes whose
requests are counted and the `runs --json` read-backs run in this process
(tests/runner/in_process_cli.py): what they check is the run core's result, and a child costs
~1.5 CPU-s of start-up. The resume, its refusals and `runs` / `report` as a user meets them
(real processes) are the --retry-errored, edited-module and Ctrl-C tests. The fake model is
slow only while a run is to be stopped in flight: the reference runs and the resumes get their
answers at once (their timing is not what is compared)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import re
import signal
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.runner.execution.events import CaseKey
from tests.fakes.faults import FaultPlan
from tests.fakes.openai_server import FakeOpenAIServer, Reply
from tests.runner.in_process_cli import cli_in_process, run_in_process
from tests.runner.test_run_cli_live import (
    CHILD_TIMEOUT,
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


#: The reports every run of these tests writes, in its folder.
OUTPUTS = ("--report-json", "report.json", "--report-md", "report.md", "--junit", "report.xml")
#: Markdown: durations (`701 ms`, `2.62 s`), the run's time, the folder it ran in.
_MD_TIMING = (
    (re.compile(r"\b\d+(?:\.\d+)? (?:ms|s)\b"), "<time>"),
    (re.compile(r"\d{4}-\d\d-\d\dT[\d:.]+[+-]\d\d:\d\d"), "<timestamp>"),
    (re.compile(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d"), "<timestamp>"),  # as shown (time_text)
)
#: JUnit: `time="…"` and `timestamp="…"` attributes.
_JUNIT_TIMING = re.compile(r'\b(time|timestamp)="[^"]*"')
#: run.json and a `runs --json` entry: the id, wall times and where the run is stored.
_STORED_TIMING = {"id", "started", "ended", "path"}


def _seed() -> int:
    raw = os.environ.get("HOLODECK_RESUME_SEED", "")
    return int(raw) if raw.isdigit() else random.SystemRandom().randrange(2**32)


@contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """A failure says which seed chose its kill points (set HOLODECK_RESUME_SEED to repeat)."""
    try:
        yield
    except AssertionError as error:
        error.add_note(f"kill points chosen with HOLODECK_RESUME_SEED={seed}")
        raise


def _outputs(folder: Path) -> dict[str, Any]:
    """A finished run's reports, its run.json and its `runs --json` entry, timing fields and
    the folder it ran in normalised: what a resumed run must match exactly."""
    (run,) = _runs(folder)
    markdown = (folder / "report.md").read_text("utf-8").replace(str(folder), "<folder>")
    for pattern, replacement in _MD_TIMING:
        markdown = pattern.sub(replacement, markdown)
    junit = _JUNIT_TIMING.sub(r'\1="…"', (folder / "report.xml").read_text("utf-8"))
    stored = json.loads((run / "run.json").read_text("utf-8"))
    return {
        "json": _stripped(_report(folder / "report.json")),
        "markdown": markdown,
        "junit": junit,
        "run.json": {k: v for k, v in stored.items() if k not in _STORED_TIMING},
    }


async def _history(folder: Path, path: Path, env: dict[str, str]) -> dict[str, Any]:
    """The agent's one `runs --json` entry, without its id, times and folder (read in this
    process: `runs` as a real process is the Ctrl-C test's)."""
    listed = await cli_in_process(["runs", str(path), "--json"], env, folder)
    assert listed.status == 0, listed.err
    listing = json.loads(listed.out)
    (entry,) = listing["runs"]
    return {k: v for k, v in entry.items() if k not in _STORED_TIMING}


def _missing(run: Path, keys: list[CaseKey]) -> Counter[tuple[str, str]]:
    """The (model, input) of each case session the killed run's journal lacks: what the
    resumed process must send, and all it may send (one turn per case)."""
    from holodeck_lsp.runner.run_history.journal import read_journal

    finished = read_journal(run / "journal.jsonl").finished
    return Counter(
        ((model or "openai:gpt-fake").split(":", 1)[1], str(index))
        for index, model, repeat in keys
        if (index, model, repeat) not in finished
    )


def _sent(server: FakeOpenAIServer) -> Counter[tuple[str, str]]:
    return Counter(
        (str(r.body["model"]), str(r.body["messages"][-1]["content"])) for r in server.chat_requests
    )


async def _reference(
    tmp_path: Path, server: FakeOpenAIServer, *extra: str
) -> tuple[dict[str, Any], dict[str, Any]]:
    """An uninterrupted run's normalised outputs and `runs --json` entry (run in this
    process: the outputs are the run core's, the same as a child's)."""
    folder = tmp_path / "reference"
    folder.mkdir()
    path = _write_agent(folder, server)
    done = await run_in_process([str(path), *OUTPUTS, *extra], _env(tmp_path), folder)
    assert done.status == 1, done.err
    return _outputs(folder), await _history(folder, path, _env(tmp_path))


async def _kill_and_resume(
    tmp_path: Path,
    server: FakeOpenAIServer,
    name: str,
    kill_after: int,
    keys: list[CaseKey],
    *extra: str,
    delay: float,
) -> tuple[Path, dict[str, Any], dict[str, Any], str]:
    """Start a run (each answer `delay` s late, so cases are in flight), SIGKILL it once the
    fake has seen `kill_after` requests, resume it (in this process, answered at once: what
    it sends and writes is the run core's; the --retry-errored test resumes through a real
    process): asserts the resume sent only what the journal lacked. Returns the run folder,
    the normalised outputs, the history entry and what the resume printed."""
    folder = tmp_path / name
    folder.mkdir()
    path = _write_agent(folder, server)
    server.requests.clear()
    _answering(server, delay)
    proc = await start([str(path), *extra], _env(tmp_path), folder)
    await wait_for_requests(server, kill_after, proc, timeout=CHILD_TIMEOUT)
    proc.send_signal(signal.SIGKILL)  # this child only, by its own handle
    await proc.wait()
    await asyncio.sleep(0.3)  # a request the child sent as it died reaches the fake first
    (run,) = _runs(folder)
    assert not (run / "run.json").exists()  # killed: nothing but the journal
    missing = _missing(run, keys)
    server.requests.clear()
    _answering(server, delay=0.0)
    resumed = await run_in_process([str(path), "--resume", *OUTPUTS], _env(tmp_path), folder)
    assert resumed.status == 1, resumed.err
    # Only the missing case sessions went to the provider: a resume that ran everything
    # again (or skipped one) would produce the same reports, but not these requests.
    assert _sent(server) == missing, f"killed after {kill_after} requests"
    assert _runs(folder) == [run]  # one run, one id
    history = await _history(folder, path, _env(tmp_path))
    return run, _outputs(folder), history, resumed.out


@pytest.mark.slow
async def test_killed_at_random_points_then_resumed_equals_an_uninterrupted_run(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    _answering(fake_openai, delay=0.0)
    reference, reference_entry = await _reference(tmp_path, fake_openai, "--parallel", "2")
    seed = _seed()
    keys: list[CaseKey] = [(n, None, None) for n in range(CASES)]
    with _seeded(seed):
        # Two kill points, one early (1-3 requests: a journal with few or no cases) and one
        # late (4-7: most cases journaled, some in flight). The seed is new each run, so the
        # runs together cover every point; each run needs only both regimes, and every kill
        # costs a killed process, a resume and a `runs` (~5 CPU-s).
        rng = random.Random(seed)
        points = [rng.randrange(1, CASES // 2), rng.randrange(CASES // 2, CASES)]
        for attempt, kill_after in enumerate(points):
            run, outputs, entry, printed = await _kill_and_resume(
                tmp_path, fake_openai, f"killed{attempt}", kill_after, keys, "--parallel", "2",
                delay=0.15,
            )  # fmt: skip
            assert f"resuming run {run.name}" in printed
            report = _report(run.parent.parent.parent / "report.json")
            assert report["run_id"] == run.name and not report["interrupted"]
            assert outputs == reference
            assert entry == reference_entry
            assert entry["interrupted"] is False and entry["cases"] == {"passed": 7, "total": 8}


async def test_ctrl_c_leaves_a_resumable_run_that_runs_and_report_call_unfinished(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    _answering(fake_openai, delay=0.3)
    path = _write_agent(tmp_path, fake_openai)
    proc = await start([str(path)], _env(tmp_path), tmp_path)
    await wait_for_requests(fake_openai, 2, proc, timeout=CHILD_TIMEOUT)
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
    # The resume in this process: `run --resume RUN` through the console script is the
    # --retry-errored test's, a pasted bare `--resume` tests/cli/test_pasted_hints.py's.
    done = await run_in_process(
        [str(path), "--resume", run.name, "--report-json", str(out)], _env(tmp_path), tmp_path
    )
    assert done.status == 1, done.err
    final = _report(out)
    assert final["run_id"] == run.name and not final["interrupted"]
    assert [r["passed"] for r in final["results"]] == [n != WRONG for n in range(CASES)]
    assert KEY not in (run / "journal.jsonl").read_text("utf-8")


#: The agent with a function tool and a code grader, each a module beside it.
TOOLS_AND_GRADER = """\
tools:
  - {name: echo, type: function, description: Echo., file: tools.py, function: echo}
"""
CODE_GRADER = '    - {type: code, grader: "grader:always"}\n'
MODULES = {
    "tools.py": "def echo(text: str) -> str:\n    return text\n",
    "grader.py": "def always(context):\n    return True\n",
}


async def test_an_edited_module_or_agent_file_refuses_the_resume_unless_forced(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    """One unfinished run, refused after each edit in turn (a tool module, a grader module,
    then the agent file), each edit undone before the next: the run's journal keeps the
    fingerprint of the files as they were when it started, so an undone edit resumes again."""
    _answering(fake_openai, delay=0.0)
    path = _write_agent(tmp_path, fake_openai)
    text = path.read_text("utf-8").replace("evaluations:", TOOLS_AND_GRADER + "evaluations:")
    path.write_text(text.replace("test_cases:", CODE_GRADER + "test_cases:"), "utf-8")
    for name, source in MODULES.items():
        (tmp_path / name).write_text(source, "utf-8")
    # A budget leaves the run unfinished without a kill: 2 of 8 cases journaled. (A killed
    # run's journal is refused alike: the check reads the journal's header, whatever ended
    # the run; the kill tests above resume killed runs.)
    # The unfinished run, the module refusals and the forced resume run in this process; the
    # agent file's refusal (its message and --force hint) is a real process's.
    stopped = await run_in_process([str(path), "--max-turns", "2"], _env(tmp_path), tmp_path)
    assert stopped.status == 4, stopped.out + stopped.err  # stopped early, none failed
    (run,) = _runs(tmp_path)
    for edited in sorted(MODULES):  # grader.py, then tools.py
        (tmp_path / edited).write_text(MODULES[edited] + "# edited\n", "utf-8")
        refused = await run_in_process([str(path), "--resume"], _env(tmp_path), tmp_path)
        assert refused.status == 2, refused.out + refused.err
        assert f"run {run.name} cannot be resumed: {edited} changed since it started" in (
            refused.err
        )
        assert "agent.yaml" not in refused.err.split("changed since")[0]  # only the module
        (tmp_path / edited).write_text(MODULES[edited], "utf-8")
    path.write_text(path.read_text("utf-8").replace("Repeat the number.", "Repeat it."), "utf-8")
    refused = await run_cli([str(path), "--resume"], _env(tmp_path), tmp_path)
    assert refused.status == 2
    # Only the agent file: the modules' undone edits are their started state again.
    assert f"run {run.name} cannot be resumed: agent.yaml changed since it started" in (refused.err)
    assert "--force" in refused.err and "Traceback" not in refused.err
    forced = await run_in_process([str(path), "--resume", "--force"], _env(tmp_path), tmp_path)
    assert forced.status == 1, forced.err
    assert "--force: agent.yaml changed" in forced.out
    assert f"resuming run {run.name}" in forced.out


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
    # The errored run in this process; the resume with --retry-errored is a real process's.
    first = await run_in_process([str(path), "--retry-budget", "0"], _env(tmp_path), tmp_path)
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
    _answering(fake_openai, delay=0.0)
    models = ["openai:gpt-a", "openai:gpt-b"]
    matrix = ["--model", models[0], "--model", models[1], "--repeat", "2"]
    reference, reference_entry = await _reference(tmp_path, fake_openai, *matrix)
    keys: list[CaseKey] = [
        (n, model, repeat) for n in range(CASES) for model in models for repeat in (1, 2)
    ]
    seed = _seed()
    with _seeded(seed):
        kill_after = random.Random(seed).randrange(1, len(keys))
        _, outputs, entry, printed = await _kill_and_resume(
            tmp_path, fake_openai, "killed", kill_after, keys, *matrix, delay=0.1
        )
        assert "of 32 case sessions left" in printed
        assert outputs == reference
        assert entry == reference_entry


async def _command(argv: list[str], cwd: Path, env: dict[str, str] | None = None) -> str:
    from tests.runner.test_run_cli_live import CLI

    proc = await asyncio.create_subprocess_exec(
        CLI,
        *argv,
        cwd=cwd,
        env=env,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    out, _ = await asyncio.wait_for(proc.communicate(), CHILD_TIMEOUT)
    return out.decode("utf-8")
