"""The tool loop through `holodeck-lsp run` as a process on the Claude Agent SDK (the real
Claude Code CLI), against the fake Anthropic server playing tests/fakes/tool_loop_models.py:
the same limit as Semantic Kernel (the CLI's `max_turns`; an agent's own `claude.max_turns`
honoured), odd calls answered by the CLI and recorded as sent, replay keeping it all
(docs/running.md, "Tool loop")."""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from holodeck_lsp.runner.cassette import comparable
from holodeck_lsp.schema.results import TestReport, TurnResult
from tests.fakes.anthropic_server import FakeAnthropicServer
from tests.fakes.tool_loop_models import (
    LEAKED_NAME,
    NOT_JSON_7,
    NOT_JSON_9,
    anthropic_responder,
    write_suite,
)
from tests.runner.backends.test_claude_backend import needs_cli
from tests.runner.test_run_cli_live import Finished, child_env, finish, read_report, start

pytestmark = [pytest.mark.slow, needs_cli]

#: The CLI takes a few seconds per turn; 20 rounds take more.
TIMEOUT = 120.0


async def run_cli(
    args: list[str], env: dict[str, str], cwd: Path, timeout: float = 30.0
) -> Finished:
    return await finish(await start(args, env, cwd), timeout)


def suite(folder: Path, server: FakeAnthropicServer, extra: str = "") -> Path:
    server.responder = anthropic_responder
    return write_suite(folder, "{provider: anthropic, name: claude-test-1}", extra)


def env(tmp_path: Path, server: FakeAnthropicServer) -> dict[str, str]:
    return child_env(
        tmp_path, ANTHROPIC_API_KEY="sk-ant-tool-loop-5e1c", ANTHROPIC_BASE_URL=server.base_url
    )


def turns(report: TestReport, case: str) -> list[TurnResult]:
    [found] = [result for result in report.results if result.test_name == case]
    return list(found.turns or [])


@dataclass(frozen=True)
class SuiteRun:
    """Both cases run once on Claude, recorded: what two tests assert on."""

    agent: Path
    report_path: Path
    cassette: Path
    done: Finished
    server: FakeAnthropicServer


@pytest.fixture(scope="module")
async def suite_run(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[SuiteRun]:
    """One recorded run of the whole suite (long-loop, then odd-calls): the tests below read
    it and change nothing in it (a Claude run costs a Python and a Node process; a run per
    test was two of them)."""
    tmp_path = tmp_path_factory.mktemp("tool-loop-claude")
    async with FakeAnthropicServer() as server:
        agent = suite(tmp_path / "suite", server)
        report_path, cassette = tmp_path / "r.json", tmp_path / "c.json"
        args = [str(agent), "--no-save", "--report-json", str(report_path)]
        done = await run_cli(
            [*args, "--record", str(cassette)], env(tmp_path, server), tmp_path, TIMEOUT
        )
        yield SuiteRun(agent, report_path, cassette, done, server)


async def test_the_claude_backend_stops_at_the_same_count(
    tmp_path: Path, suite_run: SuiteRun
) -> None:
    agent, done, cassette = suite_run.agent, suite_run.done, suite_run.cassette
    report = read_report(suite_run.report_path)
    stopped, thanks = turns(report, "long-loop")
    assert stopped.tool_limit_reached == 20, done.err
    assert len(stopped.tool_invocations) == 20
    assert all(call.result is not None for call in stopped.tool_invocations)  # each one ran
    assert stopped.errors == ["stopped after 20 tool rounds: the limit"]
    assert thanks.passed and thanks.response == "You're welcome."  # the session went on
    assert "1 turn stopped at the tool-round limit (20): raise --max-tool-rounds" in done.out

    replayed = tmp_path / "replayed.json"
    again = await run_cli(
        [str(agent), "--no-save", "--replay", str(cassette), "--report-json", str(replayed)],
        env(tmp_path, suite_run.server),
        tmp_path,
    )
    assert again.status == done.status == 1
    assert comparable(read_report(replayed)) == comparable(report)


async def test_the_flag_and_the_agents_own_max_turns(
    tmp_path: Path, fake_anthropic: FakeAnthropicServer
) -> None:
    agent = suite(tmp_path / "flag", fake_anthropic)
    report_path = tmp_path / "r.json"
    base = [str(agent), "--no-save", "--case", "long-loop", "--report-json", str(report_path)]
    done = await run_cli(
        [*base, "--max-tool-rounds", "3"], env(tmp_path, fake_anthropic), tmp_path, TIMEOUT
    )
    stopped = turns(read_report(report_path), "long-loop")[0]
    assert (stopped.tool_limit_reached, len(stopped.tool_invocations)) == (3, 3), done.err

    # Written in the agent (upstream's knob), it is the agent's limit.
    agent = suite(tmp_path / "own", fake_anthropic, "claude: {max_turns: 2}\n")
    base[0] = str(agent)
    done = await run_cli(base, env(tmp_path, fake_anthropic), tmp_path, TIMEOUT)
    stopped = turns(read_report(report_path), "long-loop")[0]
    assert (stopped.tool_limit_reached, len(stopped.tool_invocations)) == (2, 2), done.err


async def test_odd_calls_on_claude_are_answered_recorded_and_graded(suite_run: SuiteRun) -> None:
    done = suite_run.done
    seven, nine, eight = turns(read_report(suite_run.report_path), "odd-calls")
    name = "mcp__tools__lookup_ticket"
    assert [
        (c.name, c.raw_arguments, c.call_problem, c.result) for c in seven.tool_invocations
    ] == [
        (LEAKED_NAME, None, "unknown_tool", None),
        (name, NOT_JSON_7, "invalid_json", None),
        (name, None, "bad_arguments", None),
        (name, None, None, "ticket 7 is open"),
    ], done.err
    assert "No such tool available" in (seven.tool_invocations[0].error or "")
    assert "could not be parsed as JSON" in (seven.tool_invocations[1].error or "")
    assert "'seven' is not of type 'integer'" in (seven.tool_invocations[2].error or "")
    assert seven.passed and seven.response == "Ticket 7 is open."
    [grader] = seven.metric_results
    assert grader.details is not None
    assert [call[1:3] for call in grader.details["calls"]] == [
        [None, "unknown_tool"],
        [NOT_JSON_7, "invalid_json"],
        [None, "bad_arguments"],
        [None, None],
    ]
    [detail] = nine.arg_match_details or []
    assert detail.unmatched_reason == (
        "arg 'ticket_id' missing; the call could not run: its arguments are not a JSON "
        f"object (sent {NOT_JSON_9!r})"
    )
    [missing] = eight.arg_match_details or []
    assert (
        missing.unmatched_reason == "tool 'lookup_ticket' was not called (no tool calls this turn)"
    )
