"""Cassettes: the exact file format, record -> replay round trips, stale and missing entries."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holodeck_lsp.runner.backends.base import BackendSessionError
from holodeck_lsp.runner.cassette import (
    CassetteFormatError,
    RecordingBackend,
    ReplayBackend,
    comparable,
    load_cassette,
)
from holodeck_lsp.runner.execution.executor import RunOptions, run_suite
from holodeck_lsp.runner.selection import Selection
from holodeck_lsp.schema.results import ToolInvocation
from tests.runner.fake_backend import FakeBackend, Reply, multi_turn_cases, usage, write_agent

EQUALITY = "evaluations:\n  metrics:\n    - type: standard\n      metric: equality\n"
CASES = (
    "  - name: dialogue\n    turns:\n"
    '      - {input: "q0", ground_truth: "a0", expected_tools: [lookup]}\n'
    '      - {input: "q1", ground_truth: "a1"}\n'
    '      - {input: "q2", ground_truth: "a2"}\n'
    '      - {input: "q3", ground_truth: "a3"}\n'
    '      - {input: "q4", ground_truth: "a4"}\n'
    '  - input: "single"\n    ground_truth: "wrong"\n'
    "  - name: dies\n    turns:\n"
    '      - {input: "d0"}\n      - {input: "d1"}\n      - {input: "d2"}\n'
)


def scripted() -> FakeBackend:
    call = ToolInvocation(name="lookup", args={"year": 2009, "row": "cash"}, result=206588.0)
    return FakeBackend(
        replies={
            "q0": Reply(response="a0", tools=(call,), usage=usage(12, 3)),
            "q1": Reply(delay=5),  # times out
            "q2": Reply(response="a2"),
            "q3": Reply(error=BackendSessionError("rate limited")),
            "q4": Reply(response="a4", usage=usage(7, 1)),
            "single": Reply(response="right", usage=usage(4, 4)),
            "d1": Reply(error=BackendSessionError("CLI exited", recoverable=False)),
        }
    )


async def record(tmp_path: Path, backend: FakeBackend) -> tuple[Path, object]:
    agent = write_agent(tmp_path, CASES, EQUALITY)
    recorder = RecordingBackend(backend, agent.name)
    report = await run_suite(agent, tmp_path, recorder, options=RunOptions(llm_timeout=0.05))
    path = tmp_path / "run.cassette.json"
    recorder.write(path)
    return path, report


async def test_the_file_has_exactly_the_documented_shape(tmp_path: Path) -> None:
    path, _ = await record(tmp_path, scripted())
    data = json.loads(path.read_text(encoding="utf-8"))
    assert list(data) == ["format", "version", "agent", "model", "cases"]
    assert (data["format"], data["version"], data["agent"]) == ("holodeck-cassette", 6, "agent")
    assert data["model"] is None  # recorded through a bare backend: who answered is not known
    assert [(c["name"], c["index"], len(c["turns"])) for c in data["cases"]] == [
        ("dialogue", 0, 5),
        (None, 1, 1),
        ("dies", 2, 2),  # d2 was never sent: the session died on d1
    ]
    first = data["cases"][0]["turns"][0]
    assert list(first) == [
        "input", "response", "tool_calls", "token_usage", "error", "errored", "duration_ms",
        "judgements", "tool_limit_reached",
    ]  # fmt: skip
    assert first["judgements"] == []  # no judged metric in this suite
    assert first["tool_calls"] == [
        {"name": "lookup", "args": {"year": 2009, "row": "cash"}, "result": 206588.0,
         "error": None, "raw_arguments": None, "call_problem": None}
    ]  # fmt: skip
    assert first["token_usage"] == {"prompt_tokens": 12, "completion_tokens": 3, "total_tokens": 15}
    timed_out, failed = data["cases"][0]["turns"][1], data["cases"][0]["turns"][3]
    assert (timed_out["response"], timed_out["error"]) == (None, "timed out after 0.05s")
    assert failed["error"] == "rate limited" and failed["token_usage"] is None
    assert isinstance(first["duration_ms"], int)


async def test_replay_gives_the_recorded_report(tmp_path: Path) -> None:
    path, recorded = await record(tmp_path, scripted())
    agent = write_agent(tmp_path, CASES, EQUALITY)
    replay = ReplayBackend(load_cassette(path), agent)
    replayed = await run_suite(agent, tmp_path, replay, options=RunOptions(llm_timeout=0.05))
    assert comparable(replayed) == comparable(recorded)  # type: ignore[arg-type]
    dies = replayed.results[2]
    assert dies.turns is not None and dies.turns[2].skipped
    assert "the session was lost on turn 1: CLI exited" in dies.turns[2].errors[0]


async def test_a_round_trip_of_a_two_failure_death_and_a_subset(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 4))
    failing = Reply(error=BackendSessionError("reset"))
    recorder = RecordingBackend(FakeBackend(replies={"c0 t1": failing, "c0 t2": failing}), "a")
    recorded = await run_suite(agent, tmp_path, recorder)
    cassette = recorder.cassette()
    replayed = await run_suite(agent, tmp_path, ReplayBackend(cassette, agent))
    assert comparable(replayed) == comparable(recorded)

    subset = Selection(case="c0", turn=1)
    recorder = RecordingBackend(FakeBackend(), "a")
    recorded = await run_suite(agent, tmp_path, recorder, selection=subset)
    assert [t.input for t in recorder.cassette().cases[0].turns] == ["c0 t0", "c0 t1"]
    replay = ReplayBackend(recorder.cassette(), agent)
    assert comparable(await run_suite(agent, tmp_path, replay, selection=subset)) == comparable(
        recorded
    )


async def test_a_changed_input_is_a_stale_error_never_a_pass(tmp_path: Path) -> None:
    path, _ = await record(tmp_path, scripted())
    edited = CASES.replace('"q3"', '"what about 2008?"')
    agent = write_agent(tmp_path, edited, EQUALITY)
    report = await run_suite(agent, tmp_path, ReplayBackend(load_cassette(path), agent))
    turns = report.results[0].turns
    assert turns is not None
    assert turns[3].errors == [
        'cassette is stale: turn 3 input differs (recorded "q3", file "what about 2008?"); '
        "record it again"
    ]
    assert not turns[3].passed and turns[0].passed and turns[4].passed


async def test_missing_cases_and_turns_are_errors(tmp_path: Path) -> None:
    path, _ = await record(tmp_path, scripted())
    extended = CASES.replace(
        '      - {input: "q4", ground_truth: "a4"}\n',
        '      - {input: "q4", ground_truth: "a4"}\n      - {input: "q5"}\n',
    )
    extended += '  - name: brand-new\n    input: "new"\n'
    agent = write_agent(tmp_path, extended, EQUALITY)
    report = await run_suite(agent, tmp_path, ReplayBackend(load_cassette(path), agent))

    dialogue = report.results[0]
    assert dialogue.turns is not None
    assert dialogue.turns[5].errors == [
        "cassette has no turn 5 for case 'dialogue' (it recorded 5 turns); record it again"
    ]
    new = report.results[3]
    assert not new.passed
    assert new.errors == [
        "skipped: the session could not be created: cassette has no case 'brand-new' "
        "(matched by name, else by index 3); record it again"
    ]


async def test_cases_match_by_name_before_position(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(2, 1))
    recorder = RecordingBackend(FakeBackend(), "a")
    await run_suite(agent, tmp_path, recorder)
    swapped = write_agent(
        tmp_path,
        '  - name: c1\n    turns:\n      - input: "c1 t0"\n'
        '  - name: c0\n    turns:\n      - input: "c0 t0"\n',
    )
    report = await run_suite(swapped, tmp_path, ReplayBackend(recorder.cassette(), swapped))
    assert all(result.passed for result in report.results)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("not json", "is not JSON"),
        ('{"format": "other"}', "is not a holodeck cassette"),
        ('{"format": "holodeck-cassette", "version": 8}', "has version 8"),
        ('{"format": "holodeck-cassette", "version": 1, "agent": "a", "cases": [{}]}', "cases.0"),
    ],
)
def test_unreadable_cassettes_say_why(tmp_path: Path, content: str, message: str) -> None:
    path = tmp_path / "c.json"
    path.write_text(content, encoding="utf-8")
    with pytest.raises(CassetteFormatError, match=message):
        load_cassette(path)
    with pytest.raises(CassetteFormatError, match="cannot read"):
        load_cassette(tmp_path / "absent.json")


def test_a_version_1_cassette_still_replays_and_is_written_as_version_4(tmp_path: Path) -> None:
    """Version 2 added `judgements`, version 3 `model`; a version 1 file reads as a cassette
    without them."""
    old = {
        "format": "holodeck-cassette",
        "version": 1,
        "agent": "agent",
        "cases": [{"name": "one", "index": 0, "turns": [
            {"input": "q", "response": "a", "tool_calls": [], "token_usage": None,
             "error": None, "duration_ms": 3}]}],
    }  # fmt: skip
    path = tmp_path / "v1.json"
    path.write_text(json.dumps(old), encoding="utf-8")
    cassette = load_cassette(path)
    assert cassette.cases[0].turns[0].judgements == []
    data = json.loads(cassette.render())
    assert data["version"] == 6 and data["cases"][0]["turns"][0]["judgements"] == []
    assert data["model"] is None
