"""The tool loop through `holodeck-lsp run` as a process, on Semantic Kernel (docs/running.md,
"Tool loop"): the limit (default 20, holodeck-lsp.yaml, --max-tool-rounds) and how a turn
stopped at it shows in the console and every report; odd calls answered as the framework
answers them and recorded as sent; SK's own log lines kept off the console; record, replay
and --rejudge keeping all of it. The model is tests/fakes/tool_loop_models.py on the fake
OpenAI server."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.runner.cassette import comparable
from holodeck_lsp.schema.results import TestReport, TurnResult
from tests.fakes.openai_server import FakeOpenAIServer
from tests.fakes.tool_loop_models import (
    LEAKED_NAME,
    NOT_JSON_7,
    NOT_JSON_9,
    TICKET_7,
    openai_responder,
    write_suite,
)
from tests.runner.test_run_cli_live import Finished, live_env, read_report, run_cli

pytestmark = pytest.mark.slow

LIMIT_REASON = "stopped after 20 tool rounds: the limit"
SUMMARY = "1 turn stopped at the tool-round limit (20): raise --max-tool-rounds"


def suite(folder: Path, server: FakeOpenAIServer) -> Path:
    server.responder = openai_responder
    return write_suite(
        folder, f'{{provider: openai, name: gpt-4o-mini, endpoint: "{server.base_url}/v1"}}'
    )


def turns(report: TestReport, case: str) -> list[TurnResult]:
    [found] = [result for result in report.results if result.test_name == case]
    return list(found.turns or [])


@dataclass(frozen=True)
class SuiteRun:
    """The whole suite run once, recorded, with every report: what several tests assert on."""

    agent: Path
    out: Path
    done: Finished
    server: FakeOpenAIServer

    @property
    def report(self) -> TestReport:
        return read_report(self.out / "r.json")


@pytest.fixture(scope="module")
async def suite_run(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SuiteRun]:
    """One run of both cases, one at a time (long-loop first, so its requests come first),
    recorded, with every report: the tests below read it and change nothing in it (a run
    costs ~3 CPU-s; a run per test was three of them)."""
    tmp_path = tmp_path_factory.mktemp("tool-loop")
    async with FakeOpenAIServer() as server:
        agent = suite(tmp_path / "suite", server)
        out = tmp_path / "out"
        done = await run_cli(
            [str(agent), "--no-save", "--parallel", "1", "--record", str(out / "c.json"),
             "--report-json", str(out / "r.json"), "--report-md", str(out / "r.md"),
             "--junit", str(out / "r.xml"), "--report-html", str(out / "r.html")],
            live_env(tmp_path),
            tmp_path,
        )  # fmt: skip
        yield SuiteRun(agent, out, done, server)


async def test_a_long_loop_stops_at_20_rounds_and_every_report_says_so(
    suite_run: SuiteRun,
) -> None:
    done, out = suite_run.done, suite_run.out
    assert done.status == 1, done.err
    report = suite_run.report
    stopped, thanks = turns(report, "long-loop")
    # 20 rounds ran, then SK asked once more with no tools: that answer is the response.
    assert stopped.tool_limit_reached == 20 and len(stopped.tool_invocations) == 20
    assert stopped.response == "Touched 20 files." and stopped.passed is False
    assert stopped.errors == [LIMIT_REASON]
    requests = suite_run.server.chat_requests
    assert [len(r.tools) > 0 for r in requests[:21]] == [True] * 20 + [False]
    assert thanks.passed and thanks.tool_limit_reached is None  # the session went on
    # The console: the turn's reason and the summary's count with what to do.
    assert LIMIT_REASON in done.out and SUMMARY in done.out
    # Every report.
    assert LIMIT_REASON in (out / "r.md").read_text() and SUMMARY in (out / "r.md").read_text()
    failures = [f.get("message") or "" for f in ET.parse(out / "r.xml").iter("failure")]
    assert any(LIMIT_REASON in message for message in failures)
    page = (out / "r.html").read_text()
    assert LIMIT_REASON in page and SUMMARY in page


async def test_the_limit_is_a_setting_of_the_project_and_of_the_run(
    tmp_path: Path, fake_openai: FakeOpenAIServer
) -> None:
    agent = suite(tmp_path / "suite", fake_openai)
    (agent.parent / "holodeck-lsp.yaml").write_text("max_tool_rounds: 4\n", encoding="utf-8")
    report_path = tmp_path / "r.json"
    base = [str(agent), "--no-save", "--case", "long-loop", "--report-json", str(report_path)]
    done = await run_cli(base, live_env(tmp_path), tmp_path)
    stopped = turns(read_report(report_path), "long-loop")[0]
    assert (stopped.tool_limit_reached, len(stopped.tool_invocations)) == (4, 4), done.err
    assert "1 turn stopped at the tool-round limit (4)" in done.out

    # The flag wins over the file; a limit above what the model wants is never reached.
    done = await run_cli([*base, "--max-tool-rounds", "30"], live_env(tmp_path), tmp_path)
    loop, _ = turns(read_report(report_path), "long-loop")
    assert loop.tool_limit_reached is None and len(loop.tool_invocations) == 25, done.err
    assert loop.passed and "tool-round limit" not in done.out

    (agent.parent / "holodeck-lsp.yaml").write_text("max_tool_rounds: 0\n", encoding="utf-8")
    done = await run_cli(base, live_env(tmp_path), tmp_path)
    assert done.status != 0 and "`max_tool_rounds` must be a whole number ≥ 1" in done.err


def calls_of(turn: TurnResult) -> list[tuple[Any, ...]]:
    return [
        (c.name, c.args, c.raw_arguments, c.call_problem, c.result) for c in turn.tool_invocations
    ]


async def test_odd_calls_get_an_error_result_the_turn_goes_on_and_all_is_recorded_as_sent(
    tmp_path: Path, suite_run: SuiteRun, fake_openai: FakeOpenAIServer
) -> None:
    done, report = suite_run.done, suite_run.report
    seven, nine, eight = turns(report, "odd-calls")
    # Several calls in one step (with text): run in the order given, each recorded.
    assert calls_of(seven) == [
        (LEAKED_NAME, {"path": "."}, '{"path": "."}', "unknown_tool", None),
        ("tools-lookup_ticket", {}, NOT_JSON_7, "invalid_json", None),
        ("tools-lookup_ticket", {"ticket_id": "seven"}, '{"ticket_id": "seven"}',
         "bad_arguments", None),
        ("tools-lookup_ticket", {"ticket_id": 7}, '{"ticket_id": 7}', None, "ticket 7 is open"),
    ]  # fmt: skip
    # The model got an error result for each odd call, and the record keeps exactly it.
    # The turn's second request (its first asked for the calls); later turns' requests carry
    # this turn too, so the first two that do are this turn's.
    ticket_7 = [
        r
        for r in suite_run.server.chat_requests
        if any(m["role"] == "user" and TICKET_7 in str(m["content"]) for m in r.messages)
    ]
    sent_back = {
        m["tool_call_id"]: m["content"] for m in ticket_7[1].messages if m["role"] == "tool"
    }
    assert len(sent_back) == 4
    assert [c.error for c in seven.tool_invocations[:3]] == list(sent_back.values())[:3]
    assert "not part of the provided tools" in (seven.tool_invocations[0].error or "")
    assert "expected to be parsed to <class 'int'>" in (seven.tool_invocations[2].error or "")
    assert seven.passed and seven.response == "Ticket 7 is open."
    # Graders see what the model sent.
    [grader] = seven.metric_results
    assert grader.details == {
        "calls": [
            [LEAKED_NAME, '{"path": "."}', "unknown_tool", True],
            ["tools-lookup_ticket", NOT_JSON_7, "invalid_json", True],
            ["tools-lookup_ticket", '{"ticket_id": "seven"}', "bad_arguments", True],
            ["tools-lookup_ticket", '{"ticket_id": 7}', None, False],
        ]
    }
    # A failed expectation says which problem happened, with the text sent.
    [detail] = nine.arg_match_details or []
    assert detail.unmatched_reason == (
        "arg 'ticket_id' missing; the call could not run: its arguments are not a JSON "
        f"object (sent {NOT_JSON_9!r})"
    )
    assert nine.response == "Ticket 9 is open."  # the turn went on to its answer
    # No call where one was needed.
    [missing] = eight.arg_match_details or []
    assert (
        missing.unmatched_reason == "tool 'lookup_ticket' was not called (no tool calls this turn)"
    )
    # SK's own log lines stay off the console.
    assert "Function failed" not in done.err and "semantic_kernel" not in done.err, done.err
    assert "Traceback" not in done.err

    # --verbose: asked for, they are shown.
    agent = suite(tmp_path / "suite", fake_openai)
    done = await run_cli(
        [str(agent), "--no-save", "--case", "odd-calls", "--verbose"], live_env(tmp_path), tmp_path
    )
    assert "parsed to <class 'int'>" in done.err


async def test_record_replay_and_rejudge_keep_the_tool_loop(
    tmp_path: Path, suite_run: SuiteRun
) -> None:
    first, agent = suite_run.done, suite_run.agent
    cassette, recorded = suite_run.out / "c.json", suite_run.out / "r.json"
    replayed = tmp_path / "b.json"
    base = [str(agent), "--no-save", "--parallel", "1"]
    fake_openai = suite_run.server
    requests = len(fake_openai.chat_requests)
    data = json.loads(cassette.read_text())
    loop_turn = data["cases"][0]["turns"][0]
    assert loop_turn["tool_limit_reached"] == 20
    odd_call = data["cases"][1]["turns"][0]["tool_calls"][1]
    assert (odd_call["raw_arguments"], odd_call["call_problem"]) == (NOT_JSON_7, "invalid_json")
    assert "malformed" in odd_call["error"]

    second = await run_cli(
        [*base, "--replay", str(cassette), "--report-json", str(replayed)],
        live_env(tmp_path),
        tmp_path,
    )
    assert len(fake_openai.chat_requests) == requests  # no model was asked
    assert comparable(read_report(replayed)) == comparable(read_report(recorded))
    assert first.status == second.status == 1
    assert "1 turn stopped at the tool-round limit (20)" in second.out

    third = await run_cli(
        [*base, "--replay", str(cassette), "--rejudge", "--report-json", str(replayed)],
        live_env(tmp_path),
        tmp_path,
    )
    assert third.status == 1, third.err
    assert comparable(read_report(replayed)) == comparable(read_report(recorded))
