"""The sample live, end to end: scripts/oracle_server.py as a real process on 127.0.0.1, and
`holodeck-lsp run` through the Semantic Kernel backend (provider ollama, found through
OLLAMA_HOST) calling the real tools.py. Also the oracle's protocol edges over real HTTP."""

from __future__ import annotations

import json
import re
import select
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.cli import main
from holodeck_lsp.schema.results import TestReport
from tests.sample.sample_support import (
    CASSETTE_MISTAKES,
    CASSETTE_SEED,
    GRADER_METRIC,
    SAMPLE_DIR,
    SCRIPTS_DIR,
    committed_subset,
    converter,
    convfinqa_source,
    copy_sample,
    grader_imports_isolated,
    has_steps,
    metric,
    oracle_server,
    program_of,
    read_report,
    switch_model,
    turn_verdicts,
    turns_of,
)

#: The oracle prints its address at once; anything slower is a broken start.
START_TIMEOUT = 20.0
LISTENING = re.compile(r"^oracle listening on (http://127\.0\.0\.1:(\d+)) \((\d+) turns wrong")


@dataclass(frozen=True)
class Oracle:
    url: str
    port: int
    wrong: int


def start_oracle(log: Path, *args: str) -> tuple[subprocess.Popen[str], Oracle]:
    """Start the oracle on a free port and wait for its first stdout line."""
    with log.open("w", encoding="utf-8") as stderr:
        proc = subprocess.Popen(
            [sys.executable, str(SCRIPTS_DIR / "oracle_server.py"), "--port", "0", "--quiet",
             *args],
            cwd=SAMPLE_DIR,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            text=True,
        )  # fmt: skip
    assert proc.stdout is not None
    ready, _, _ = select.select([proc.stdout], [], [], START_TIMEOUT)
    line = proc.stdout.readline() if ready else ""
    match = LISTENING.match(line)
    if match is None:
        stop(proc)
        raise AssertionError(f"the oracle did not start: {line!r}\n{log.read_text()}")
    return proc, Oracle(match.group(1), int(match.group(2)), int(match.group(3)))


def stop(proc: subprocess.Popen[str]) -> None:
    """Stop this child only, by its own handle."""
    proc.terminate()
    try:
        proc.wait(timeout=5)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()
    if proc.stdout is not None:
        proc.stdout.close()


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    """The oracle answering every turn correctly."""
    proc, server = start_oracle(tmp_path_factory.mktemp("oracle") / "stderr.log", "--mistakes", "0")
    yield server
    stop(proc)


@pytest.fixture(scope="module")
def mistaken_oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Oracle]:
    """The oracle with the committed cassette's settings."""
    proc, server = start_oracle(
        tmp_path_factory.mktemp("oracle") / "stderr.log",
        "--mistakes", str(CASSETTE_MISTAKES), "--seed", str(CASSETTE_SEED),
    )  # fmt: skip
    yield server
    stop(proc)


def run_live(
    server: Oracle, sample: Path, out: Path, monkeypatch: pytest.MonkeyPatch
) -> tuple[int, TestReport]:
    """The sample's agent.yaml unchanged (provider ollama, no endpoint) in a copy (`sample`,
    where the run is stored): OLLAMA_HOST points the backend at the oracle, as the README's
    instructions do."""
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{server.port}")
    with grader_imports_isolated():
        status = main(["run", str(sample), "--report-json", str(out), "--parallel", "4", "--quiet"])
    return status, read_report(out)


# -- live runs -------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_live_run_against_the_oracle_passes_every_turn(
    oracle: Oracle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert oracle.wrong == 0
    status, report = run_live(oracle, copy_sample(tmp_path), tmp_path / "live.json", monkeypatch)
    assert status == 0
    assert report.summary.total_turns == 34 and report.summary.passed_turns == 34
    assert report.environment["mode"] == "live"
    subset = committed_subset()
    computed = 0
    for case, turn in turns_of(report):
        assert turn.passed and not turn.errors, (case, turn.turn_index)
        assert turn.tools_matched is not False, (case, turn.turn_index, turn.arg_match_details)
        assert all(not call.error for call in turn.tool_invocations)
        if has_steps(program_of(turn, subset, case)):
            grader = metric(turn, GRADER_METRIC)
            assert grader.score == 1.0, (case, turn.turn_index, grader.reasoning)
            computed += 1
    assert computed > 10


@pytest.mark.slow
def test_the_openai_alternative_reaches_the_oracle_through_openai_base_url(
    oracle: Oracle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent file's commented openai line, with OPENAI_BASE_URL as the oracle's usage
    says: the same backend through its other provider, every turn right."""
    folder = copy_sample(tmp_path)
    switch_model(folder / "agent.yaml", "openai")
    monkeypatch.setenv("OPENAI_BASE_URL", f"{oracle.url}/v1")
    monkeypatch.setenv("OPENAI_API_KEY", "oracle")
    out = tmp_path / "live.json"
    with grader_imports_isolated():
        status = main(["run", str(folder), "--report-json", str(out), "--parallel", "4", "--quiet"])
    assert status == 0
    report = read_report(out)
    assert report.summary.passed_turns == report.summary.total_turns == 34


#: The cases the Claude path runs: each CLI process (one per case) costs about 1.5 CPU-s, and
#: the other seven cases take no path these three do not: a table value looked up, steps
#: chained through an earlier result (`divide(#0, …)`), a constant (`const_100`), answers
#: taken from the page's text with no call, later turns building on earlier ones — through the
#: same MCP tools of tools.py. Every case's turns against the oracle are checked by the live
#: runs above, through Semantic Kernel.
CLAUDE_CASES = (
    "single-mro-2007-page-134-pdf-1",
    "single-ipg-2009-page-85-pdf-3",
    "double-rsg-2016-page-144-pdf",
)


@pytest.mark.slow
def test_the_anthropic_alternative_runs_green_on_the_claude_agent_sdk(
    oracle: Oracle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The agent file's commented anthropic line: the real Claude Code CLI (bundled with
    claude-agent-sdk) streams Anthropic messages to the oracle through ANTHROPIC_BASE_URL and
    calls tools.py as MCP tools (`mcp__tools__…`); every turn passes and the program grader
    matches those names too. Three cases at once (`CLAUDE_CASES`)."""
    folder = copy_sample(tmp_path)
    switch_model(folder / "agent.yaml", "anthropic")
    monkeypatch.setenv("ANTHROPIC_BASE_URL", oracle.url)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "oracle")
    out = tmp_path / "claude.json"
    chosen = [arg for name in CLAUDE_CASES for arg in ("--case", name)]
    with grader_imports_isolated():
        status = main(
            ["run", str(folder), *chosen, "--report-json", str(out), "--parallel", "4", "--quiet"]
        )
    report = read_report(out)
    assert status == 0, [t.errors for _, t in turns_of(report) if not t.passed]
    assert [case.test_name for case in report.results] == list(CLAUDE_CASES)
    assert report.summary.passed_turns == report.summary.total_turns == 5 + 2 + 4
    names = {c.name for _, t in turns_of(report) for c in t.tool_invocations}
    assert "mcp__tools__lookup" in names and "mcp__tools__divide" in names
    assert {metric(t, GRADER_METRIC).score for _, t in turns_of(report)} == {1.0}


def test_anthropic_messages_get_the_same_tool_call_streamed_or_not(oracle: Oracle) -> None:
    """What the CLI sends for the first question: a tool_use block for the lookup, as JSON
    and as server-sent events."""
    question = first_question()["content"]
    body = {
        "model": "claude-sonnet-4-5",
        "max_tokens": 1024,
        "tools": [{"name": "mcp__tools__lookup", "input_schema": {"type": "object"}}],
        "messages": [{"role": "user", "content": [{"type": "text", "text": question}]}],
    }
    status, message = request(f"{oracle.url}/v1/messages", body)
    assert status == 200 and message["stop_reason"] == "tool_use"
    [use] = message["content"]
    assert use["type"] == "tool_use" and use["name"] == "mcp__tools__lookup"
    assert use["input"]["column"] == "2007"
    raw = (
        urllib.request.urlopen(
            urllib.request.Request(
                f"{oracle.url}/v1/messages",
                data=json.dumps({**body, "stream": True}).encode(),
                headers={"Content-Type": "application/json", "anthropic-version": "2023-06-01"},
            ),
            timeout=10,
        )
        .read()
        .decode()
    )
    events = [line[len("event: ") :] for line in raw.splitlines() if line.startswith("event: ")]
    assert events[0] == "message_start" and events[-1] == "message_stop"
    assert '"partial_json": ' in raw and "2007" in raw


def recorded_turns(report: TestReport) -> list[tuple[str | None, list[tuple[str, Any, Any]]]]:
    """Per turn: the answer and the tool calls (name, args, result) the tools really made."""
    return [
        (turn.response, [(c.name, c.args, c.result) for c in turn.tool_invocations])
        for _, turn in turns_of(report)
    ]


@pytest.mark.slow
def test_the_committed_cassette_is_a_faithful_recording(
    mistaken_oracle: Oracle, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Live against the oracle with the cassette's settings gives, turn by turn, the verdicts,
    answers and tool calls of replaying the cassette."""
    assert mistaken_oracle.wrong == 7
    sample = copy_sample(tmp_path)
    live_status, live = run_live(mistaken_oracle, sample, tmp_path / "live.json", monkeypatch)
    with grader_imports_isolated():
        replay_status = main(
            ["run", str(sample), "--replay", str(sample / "cassettes" / "oracle.json"),
             "--report-json", str(tmp_path / "replay.json"), "--quiet"]
        )  # fmt: skip
    replay = read_report(tmp_path / "replay.json")
    assert live_status == replay_status == 1
    assert turn_verdicts(live) == turn_verdicts(replay)
    assert recorded_turns(live) == recorded_turns(replay)


# -- the protocol ----------------------------------------------------------------------------


def request(url: str, body: dict[str, Any] | None = None) -> tuple[int, Any]:
    """GET (no body) or POST JSON; (status, parsed JSON) whatever the status."""
    data = None if body is None else json.dumps(body).encode()
    headers = {"Content-Type": "application/json"} if data else {}
    try:
        with urllib.request.urlopen(
            urllib.request.Request(url, data=data, headers=headers), timeout=10
        ) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as error:
        with error:
            return error.code, json.loads(error.read())


def first_question() -> dict[str, Any]:
    dialogue = committed_subset()["dialogues"][0]
    return {"role": "user", "content": dialogue["dialogue"]["conv_questions"][0]}


def test_an_unknown_dialogue_is_a_400_naming_the_oracle(oracle: Oracle) -> None:
    status, body = request(
        f"{oracle.url}/v1/chat/completions",
        {"model": "x", "messages": [{"role": "user", "content": "What is the GDP of France?"}]},
    )
    assert status == 400
    assert body["error"]["type"] == "invalid_request_error"
    assert body["error"]["message"].startswith("oracle: ")
    assert "What is the GDP of France?" in body["error"]["message"]


def test_streaming_is_refused(oracle: Oracle) -> None:
    status, body = request(
        f"{oracle.url}/v1/chat/completions", {"stream": True, "messages": [first_question()]}
    )
    assert status == 400
    message = "oracle: chat completions are not streamed here; send stream: false"
    assert body["error"]["message"] == message


def test_a_known_question_gets_a_tool_call(oracle: Oracle) -> None:
    """The sample's first question, with the tools the backend would offer: a lookup call."""
    tools = [{"type": "function", "function": {"name": "tools-lookup", "parameters": {}}}]
    status, body = request(
        f"{oracle.url}/v1/chat/completions", {"messages": [first_question()], "tools": tools}
    )
    assert status == 200
    [choice] = body["choices"]
    assert choice["finish_reason"] == "tool_calls"
    [call] = choice["message"]["tool_calls"]
    assert call["function"]["name"] == "tools-lookup"
    assert json.loads(call["function"]["arguments"])["column"] == "2007"


def test_the_models_list_names_the_oracle(oracle: Oracle) -> None:
    status, body = request(f"{oracle.url}/v1/models")
    assert status == 200
    assert body["object"] == "list"
    assert [model["id"] for model in body["data"]] == ["convfinqa-oracle"]


def test_the_plan_covers_the_ten_dialogues(oracle: Oracle, mistaken_oracle: Oracle) -> None:
    status, plan = request(f"{oracle.url}/oracle/plan")
    assert status == 200
    subset = committed_subset()
    assert list(plan) == [d["id"] for d in subset["dialogues"]]
    assert [len(turns) for turns in plan.values()] == [
        len(d["dialogue"]["conv_questions"]) for d in subset["dialogues"]
    ]
    first = plan[subset["dialogues"][0]["id"]][0]
    assert set(first) == {"case", "turn", "question", "answer", "calls", "mistake", "refs"}
    assert all(turn["mistake"] is None for turns in plan.values() for turn in turns)
    _, mistaken = request(f"{mistaken_oracle.url}/oracle/plan")
    assert sum(turn["mistake"] is not None for turns in mistaken.values() for turn in turns) == 7


# -- latency ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_latency_holds_each_answer_without_serialising_requests(tmp_path: Path) -> None:
    """`--latency-ms 300`: each answer takes at least 300 ms, and two requests sent at once
    are both answered within 500 ms — they wait side by side, not one after the other."""
    proc, server = start_oracle(tmp_path / "stderr.log", "--latency-ms", "300")
    try:
        tools = [{"type": "function", "function": {"name": "tools-lookup", "parameters": {}}}]
        body = {"model": "x", "messages": [first_question()], "tools": tools}
        url = f"{server.url}/v1/chat/completions"
        request(url, body)  # a first connection, so the timing below is the latency alone
        durations: list[float] = []

        def timed() -> None:
            began = time.perf_counter()
            status, _ = request(url, body)
            assert status == 200
            durations.append(time.perf_counter() - began)

        threads = [threading.Thread(target=timed) for _ in range(2)]
        began = time.perf_counter()
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        total = time.perf_counter() - began
    finally:
        stop(proc)
    assert len(durations) == 2 and min(durations) >= 0.3
    assert total < 0.5, f"two 300 ms answers took {total:.3f}s together: serialised"


@pytest.mark.slow
def test_the_oracle_knows_every_dialogue_of_the_whole_split(tmp_path: Path) -> None:
    """Given the converter's `--n all` output, the oracle finds each dialogue by its page's
    id line and starts it with that dialogue's first step."""
    source = convfinqa_source()
    if source is None:
        pytest.skip("ConvFinQA dev file not found: set CONVFINQA_SOURCE")
    out = tmp_path / "data" / "convfinqa_subset.json"
    assert converter().main(["--source", str(source), "--n", "all", "--out", str(out)]) == 0
    subset = json.loads(out.read_text(encoding="utf-8"))
    server = oracle_server()
    plans = server.build_plans(subset, 0.0, 1)
    oracle = server.Oracle(plans)
    plan_module = sys.modules["oracle_plan"]
    tools = ["lookup", "add", "subtract", "multiply", "divide", "exp", "greater"]
    for dialogue in subset["dialogues"]:
        page = (out.parent / "documents" / f"{dialogue['test_case']['name']}.txt").read_text()
        question = dialogue["dialogue"]["conv_questions"][0]
        events = [plan_module.UserText(page), plan_module.UserText(question)]
        step = oracle.next_step(events, tools)
        first = plans[dialogue["id"]][0]
        if first.calls:
            assert step.id == f"call_{first.case}_0_0", dialogue["id"]
        else:
            assert step.text == first.answer, dialogue["id"]
    assert len(plans) == 371
