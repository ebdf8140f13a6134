"""The executor against a scripted in-process backend: sessions, turn order, timeouts,
failures, dead sessions, graders, cancellation, parallelism, subsets and files."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from holodeck_lsp.engine.turn_grading import GradingOptions
from holodeck_lsp.reports.run import json_report
from holodeck_lsp.runner.backends.base import BackendInitError, BackendSessionError
from holodeck_lsp.runner.execution import case_runner
from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.runner.execution.executor import RunOptions, resolve_parallelism, run_suite
from holodeck_lsp.runner.selection import Selection, SelectionError
from holodeck_lsp.schema.results import TestReport, TestResult, ToolInvocation, TurnResult
from tests.runner.fake_backend import FakeBackend, Reply, multi_turn_cases, usage, write_agent

EQUALITY = "evaluations:\n  metrics:\n    - type: standard\n      metric: equality\n"


def assert_totals_add_up(report: TestReport) -> None:
    summary = report.summary
    counted = summary.passed + summary.failed + summary.errored + summary.not_run
    assert counted == summary.total_tests == len(report.results)
    turns = sum(len(r.turns) if r.turns is not None else 1 for r in report.results)
    assert summary.total_turns == turns


async def test_turns_go_in_order_through_one_session_per_case(tmp_path: Path) -> None:
    agent = write_agent(
        tmp_path,
        multi_turn_cases(1, 3)
        + '  - name: legacy\n    input: "single"\n    expected_tools: [lookup]\n',
    )
    lookup = ToolInvocation(name="lookup", args={"q": "x"}, result=1)
    backend = FakeBackend(
        replies={
            "c0 t0": Reply(usage=usage(10, 2)),
            "c0 t1": Reply(usage=usage(20, 3)),
            "c0 t2": Reply(usage=None),
            "single": Reply(tools=(lookup,), usage=usage(5, 1)),
        }
    )
    report = await run_suite(agent, tmp_path, backend)

    assert [s.sent for s in backend.sessions] == [["c0 t0", "c0 t1", "c0 t2"], ["single"]]
    assert all(session.closed for session in backend.sessions)
    multi, legacy = report.results
    assert multi.passed and legacy.passed
    assert multi.turns is not None and [t.turn_index for t in multi.turns] == [0, 1, 2]
    assert multi.token_usage == usage(30, 5)  # the element-wise sum of the turns (FR-007)
    assert legacy.turns is None and legacy.token_usage == usage(5, 1)
    assert legacy.tool_invocations == [lookup] and legacy.tools_matched is True
    assert report.summary.total_turns == 4 and report.summary.passed == 2
    assert TestReport.model_validate_json(json_report.render(report)) == report


async def test_a_timed_out_turn_fails_and_the_next_turn_still_runs(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 3))
    backend = FakeBackend(replies={"c0 t1": Reply(delay=5)})
    options = RunOptions(llm_timeout=0.05)
    report = await run_suite(agent, tmp_path, backend, options=options)

    turns = report.results[0].turns
    assert turns is not None
    assert turns[1].errors == ["timed out after 0.05s"] and not turns[1].passed
    assert turns[2].passed and not turns[2].skipped
    assert backend.sessions[0].sent == ["c0 t0", "c0 t1", "c0 t2"]  # same session
    assert len(backend.sessions) == 1 and backend.sessions[0].closed
    assert not report.results[0].passed


async def test_a_backend_error_fails_only_its_turn(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 3))
    backend = FakeBackend(replies={"c0 t1": Reply(error=BackendSessionError("rate limited"))})
    report = await run_suite(agent, tmp_path, backend)

    turns = report.results[0].turns
    assert turns is not None
    assert [t.passed for t in turns] == [True, False, True]
    assert turns[1].errors == ["rate limited"]
    assert report.results[0].errors == ["[turn 1] rate limited"]


async def test_an_unexpected_exception_names_its_type(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 2))
    backend = FakeBackend(replies={"c0 t0": Reply(error=KeyError("boom"))})
    report = await run_suite(agent, tmp_path, backend)
    turns = report.results[0].turns
    assert turns is not None
    assert turns[0].errors == ["KeyError: 'boom'"] and turns[1].passed


async def test_a_dead_session_skips_the_remaining_turns(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 4))
    backend = FakeBackend(
        replies={"c0 t1": Reply(error=BackendSessionError("CLI exited", recoverable=False))}
    )
    report = await run_suite(agent, tmp_path, backend)

    turns = report.results[0].turns
    assert turns is not None
    assert [t.skipped for t in turns] == [False, False, True, True]
    assert turns[2].errors == ["skipped: the session was lost on turn 1: CLI exited"]
    assert backend.sessions[0].sent == ["c0 t0", "c0 t1"] and backend.sessions[0].closed
    assert_totals_add_up(report)


async def test_two_consecutive_failures_end_the_session(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 4))
    failing = Reply(error=BackendSessionError("connection reset"))
    backend = FakeBackend(replies={"c0 t0": failing, "c0 t1": failing})
    report = await run_suite(agent, tmp_path, backend)

    turns = report.results[0].turns
    assert turns is not None
    assert [t.skipped for t in turns] == [False, False, True, True]
    assert "unrecoverable: turns 0 and 1 both failed" in turns[3].errors[0]
    assert backend.sessions[0].sent == ["c0 t0", "c0 t1"]


async def test_a_session_that_cannot_be_created_fails_only_its_case(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(2, 2))
    backend = FakeBackend(fail_create={0: BackendInitError("no API key")})
    report = await run_suite(agent, tmp_path, backend)

    first, second = report.results
    assert not first.passed and second.passed
    assert first.turns is not None and all(t.skipped for t in first.turns)
    assert first.turns[0].errors == ["skipped: the session could not be created: no API key"]
    assert_totals_add_up(report)


async def test_a_crash_inside_one_case_keeps_the_others(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(2, 2))
    real = case_runner.prepare_files
    calls = 0

    def explode_once(*args: object, **kwargs: object) -> object:
        nonlocal calls
        calls += 1
        if calls == 2:
            raise RuntimeError("executor bug")
        return real(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(case_runner, "prepare_files", explode_once)
    backend = FakeBackend()
    report = await run_suite(agent, tmp_path, backend)

    first, second = report.results
    assert first.turns is not None and first.turns[0].passed
    assert first.turns[1].skipped
    assert "the case crashed: RuntimeError: executor bug" in first.turns[1].errors[0]
    assert second.passed
    assert all(session.closed for session in backend.sessions)


GRADERS = """
def good(ctx):
    return ctx.agent_response == "ok"


def broken(ctx):
    raise ValueError("bad program")
"""


async def test_grader_exceptions_and_import_errors_fail_their_metric(tmp_path: Path) -> None:
    (tmp_path / "exec_graders.py").write_text(GRADERS, encoding="utf-8")
    (tmp_path / "exec_graders_absent.py").write_text(
        'raise ImportError("needs numpy")\n\n\ndef nope(ctx):\n    return 1\n', encoding="utf-8"
    )
    cases = (
        '  - name: raises\n    input: "a"\n    evaluations:\n'
        "      - type: code\n        grader: exec_graders:broken\n"
        '  - name: missing\n    input: "b"\n    evaluations:\n'
        "      - type: code\n        grader: exec_graders_absent:nope\n"
        '  - name: fine\n    input: "c"\n    evaluations:\n'
        "      - type: code\n        grader: exec_graders:good\n"
    )
    agent = write_agent(tmp_path, cases)
    report = await run_suite(agent, tmp_path, FakeBackend())

    raises, missing, fine = report.results
    assert not raises.passed
    assert raises.metric_results[0].error == (
        "grader 'exec_graders:broken' raised ValueError: bad program"
    )
    assert not missing.passed
    error = missing.metric_results[0].error or ""
    assert "could not be loaded" in error and "needs numpy" in error
    assert fine.passed


STOPPING = """
def picky(ctx):
    if ctx.turn_index == 1:
        raise RuntimeError("cannot grade this")
    return True


def low(ctx):
    return 0.0
"""


async def test_fail_on_error_stops_the_case_at_the_raising_turn(tmp_path: Path) -> None:
    # Upstream stops the case at the turn whose grader raised and skips the rest (the data
    # model's fail_on_error); other cases, and a failing *score*, are unaffected.
    (tmp_path / "stop_graders.py").write_text(STOPPING, encoding="utf-8")
    turns = "".join(f'      - input: "s t{i}"\n' for i in range(4))
    cases = (
        "  - name: stops\n    evaluations:\n"
        "      - {type: code, grader: 'stop_graders:picky', fail_on_error: true}\n"
        f"    turns:\n{turns}"
        "  - name: default\n    evaluations:\n"
        "      - {type: code, grader: 'stop_graders:picky'}\n"
        f"    turns:\n{turns.replace('s t', 'd t')}"
        "  - name: low score\n    evaluations:\n"
        "      - {type: code, grader: 'stop_graders:low', fail_on_error: true}\n"
        f"    turns:\n{turns.replace('s t', 'l t')}"
    )
    agent = write_agent(tmp_path, cases)
    backend = FakeBackend()
    report = await run_suite(agent, tmp_path, backend)

    stops, default, low = report.results
    assert stops.turns is not None and not stops.passed
    assert stops.turns[0].passed and not stops.turns[1].passed
    assert "raised RuntimeError: cannot grade this" in (
        stops.turns[1].metric_results[0].error or ""
    )
    reason = "not run: grader 'stop_graders:picky' failed on turn 1 and its metric sets"
    for skipped in stops.turns[2:]:
        assert skipped.skipped and reason in skipped.errors[0]
    assert backend.sessions[0].sent == ["s t0", "s t1"]  # turns 2 and 3 never sent
    assert default.turns is not None and [t.skipped for t in default.turns] == [False] * 4
    assert low.turns is not None and not any(t.skipped for t in low.turns)


class Recorder:
    def __init__(self) -> None:
        self.events: list[tuple[str, int, int | None]] = []

    def case_started(self, case: CaseRef) -> None:
        self.events.append(("start", case.index, None))

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self.events.append(("turn", case.index, turn.turn_index))

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self.events.append(("end", case.index, None))


async def test_cancelling_mid_run_returns_a_partial_report(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(4, 3))
    backend = FakeBackend(default=Reply(delay=0.01), replies={"c1 t1": Reply(delay=10)})
    cancel = asyncio.Event()

    class CancelDuringC1(Recorder):
        def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
            super().turn_finished(case, turn)
            if (case.index, turn.turn_index) == (1, 0):
                # c1's turn 1 (10 s) is now in flight: cancel while it runs.
                asyncio.get_running_loop().call_later(0.05, cancel.set)

    progress = CancelDuringC1()
    report = await asyncio.wait_for(
        run_suite(agent, tmp_path, backend, progress=progress, cancel=cancel), timeout=5
    )

    assert_totals_add_up(report)
    assert report.summary.total_turns == 12
    c0, c1, c2, c3 = report.results
    assert c0.passed
    assert c1.turns is not None
    assert c1.turns[0].passed
    assert [t.errors for t in c1.turns[1:]] == [["skipped: cancelled"]] * 2
    for result in (c2, c3):
        assert result.turns is not None and all(t.skipped for t in result.turns)
    assert len(backend.sessions) == 2 and all(s.closed for s in backend.sessions)
    assert report.environment["cancelled"] == "true"
    written = tmp_path / "partial.json"
    written.write_text(json_report.render(report), encoding="utf-8")
    # Cut short by the cancel, none failed: not run, counted apart from failed.
    summary = json.loads(written.read_text())["summary"]
    assert (summary["failed"], summary["not_run"]) == (0, 3)


async def test_cancelling_the_task_still_returns_the_report(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(2, 2))
    backend = FakeBackend(replies={"c0 t1": Reply(delay=10)})
    task = asyncio.create_task(run_suite(agent, tmp_path, backend))
    await asyncio.sleep(0.1)
    task.cancel()
    report = await asyncio.wait_for(task, timeout=5)
    assert_totals_add_up(report)
    first = report.results[0]
    assert first.turns is not None and first.turns[1].errors == ["skipped: cancelled"]
    assert all(s.closed for s in backend.sessions)


async def test_parallel_cases_keep_file_order(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(8, 2))
    # Later cases answer faster, so they finish first.
    replies = {f"c{i} t{t}": Reply(delay=0.01 * (8 - i)) for i in range(8) for t in range(2)}
    backend = FakeBackend(replies=replies)
    recorder = Recorder()
    report = await run_suite(
        agent, tmp_path, backend, options=RunOptions(parallel=4), progress=recorder
    )

    assert [r.test_name for r in report.results] == [f"c{i}" for i in range(8)]
    assert [r.test_index for r in report.results] == list(range(8))
    assert backend.max_open == 4
    finished = [index for event, index, _ in recorder.events if event == "end"]
    assert finished != sorted(finished)  # they really did finish out of order
    assert all(r.passed for r in report.results)


async def test_parallel_one_runs_one_case_at_a_time(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(3, 2))
    backend = FakeBackend(default=Reply(delay=0.005))
    await run_suite(agent, tmp_path, backend)
    assert backend.max_open == 1


def test_parallelism_resolution(tmp_path: Path) -> None:
    plain = write_agent(tmp_path / "a", multi_turn_cases(1, 1))
    configured = write_agent(
        tmp_path / "b", multi_turn_cases(1, 1), "execution:\n  parallel_test_cases: 3\n"
    )
    env = {"HOLODECK_PARALLEL_TEST_CASES": "6"}
    assert resolve_parallelism(2, configured, env) == 2  # CLI wins
    assert resolve_parallelism(None, configured, env) == 3  # then YAML
    assert resolve_parallelism(None, plain, env) == 6  # then the environment
    assert resolve_parallelism(None, plain, {}) == 1
    assert resolve_parallelism(None, plain, {"HOLODECK_PARALLEL_TEST_CASES": "zero"}) == 1
    options = RunOptions.for_agent(configured, env={})
    assert options.parallel == 3 and options.llm_timeout is None


async def test_llm_timeout_comes_from_the_agent(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 1), "execution:\n  llm_timeout: 7\n")
    assert RunOptions.for_agent(agent, env={}).llm_timeout == 7.0


async def test_one_case_by_name_or_position(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(3, 2))
    for selector in ("c1", "1", 1):
        backend = FakeBackend()
        report = await run_suite(agent, tmp_path, backend, selection=Selection(case=selector))
        assert [r.test_name for r in report.results] == ["c1"]
        assert report.results[0].test_index == 1
        assert [s.sent for s in backend.sessions] == [["c1 t0", "c1 t1"]]


async def test_one_turn_sends_earlier_turns_as_context_and_reports_only_it(
    tmp_path: Path,
) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 4))
    backend = FakeBackend(replies={"c0 t1": Reply(usage=usage(100, 1))})
    report = await run_suite(agent, tmp_path, backend, selection=Selection(case="c0", turn=2))

    assert backend.sessions[0].sent == ["c0 t0", "c0 t1", "c0 t2"]  # turn 3 is never sent
    (result,) = report.results
    assert result.turns is not None and [t.turn_index for t in result.turns] == [2]
    assert result.test_input == "c0 t2" and result.token_usage is None  # context not counted
    assert report.summary.total_turns == 1 and result.passed


async def test_a_failed_context_turn_is_reported_on_the_selected_turn(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 3))
    backend = FakeBackend(replies={"c0 t0": Reply(error=BackendSessionError("flaky"))})
    report = await run_suite(agent, tmp_path, backend, selection=Selection(case=0, turn=1))
    (result,) = report.results
    assert result.turns is not None
    assert result.turns[0].errors == ["context turn 0: flaky"] and not result.passed


def test_bad_selections_are_refused_before_anything_runs(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(2, 2) + '  - input: "single"\n')
    backend = FakeBackend()
    for selection, message in [
        (Selection(case="nope"), "no test case named 'nope'"),
        (Selection(case=5), "no test case at position 5"),
        (Selection(case="c0", turn=2), "has 2 turns (0..1); there is no turn 2"),
        (Selection(turn=0), "together with a case"),
        (Selection(case=2, turn=1), "has 1 turn (0..0)"),
    ]:
        with pytest.raises(SelectionError, match=message.replace("(", r"\(").replace(")", r"\)")):
            asyncio.run(run_suite(agent, tmp_path, backend, selection=selection))
    assert backend.sessions == []


async def test_files_go_with_their_turn_only(tmp_path: Path) -> None:
    (tmp_path / "notes.txt").write_text("hello notes", encoding="utf-8")
    (tmp_path / "table.csv").write_text("a,b\n1,2\n", encoding="utf-8")
    (tmp_path / "chart.png").write_bytes(b"\x89PNG fake")
    cases = """  - name: files
    turns:
      - input: "t0"
        files:
          - {path: notes.txt, type: text, description: my notes}
          - {path: table.csv, type: csv}
      - input: "t1"
        files:
          - {path: chart.png, type: image}
      - input: "t2"
      - input: "t3"
        files:
          - {path: report.pdf, type: pdf}
          - {url: "https://example.com/x.png", type: image}
          - {path: missing.txt, type: text}
"""
    agent = write_agent(tmp_path, cases)
    backend = FakeBackend()
    report = await run_suite(agent, tmp_path, backend)

    sent = backend.sessions[0].files
    assert [(f.kind, f.media_type, f.text) for f in sent[0]] == [
        ("text", "text/plain", "hello notes"),
        ("text", "text/csv", "a,b\n1,2\n"),
    ]
    assert sent[0][0].description == "my notes" and sent[0][0].path == tmp_path / "notes.txt"
    assert [(f.kind, f.media_type, f.data) for f in sent[1]] == [
        ("image", "image/png", b"\x89PNG fake")
    ]
    assert sent[2] == [] and sent[3] == []
    turns = report.results[0].turns
    assert turns is not None
    assert [t.passed for t in turns] == [True, True, True, False]
    errors = turns[3].errors
    assert errors[0] == "file report.pdf: pdf files are not supported by holodeck-lsp yet"
    assert errors[1].startswith("file https://example.com/x.png: url files are not supported")
    assert errors[2].startswith("file missing.txt: cannot read")


async def test_equality_is_graded_live_per_turn(tmp_path: Path) -> None:
    cases = (
        "  - name: eq\n    turns:\n"
        '      - {input: "q0", ground_truth: "yes"}\n'
        '      - {input: "q1", ground_truth: "no"}\n'
    )
    agent = write_agent(tmp_path, cases, EQUALITY)
    backend = FakeBackend(default=Reply(response="yes"))
    recorder = Recorder()
    report = await run_suite(
        agent,
        tmp_path,
        backend,
        progress=recorder,
        options=RunOptions(grading=GradingOptions(grader_timeout=5)),
    )
    turns = report.results[0].turns
    assert turns is not None and [t.passed for t in turns] == [True, False]
    assert recorder.events == [("start", 0, None), ("turn", 0, 0), ("turn", 0, 1), ("end", 0, None)]


async def test_the_longest_cases_take_the_slots_first_results_stay_in_file_order(
    tmp_path: Path,
) -> None:
    # c0 and c1 send 1 turn, c2 sends 3: with 2 slots c2 starts at once instead of waiting.
    agent = write_agent(tmp_path, multi_turn_cases(2, 1) + multi_turn_cases(1, 3, prefix="d"))
    backend = FakeBackend(default=Reply(delay=0.01))
    refs: list[CaseRef] = []

    class Starts(Recorder):
        def case_started(self, case: CaseRef) -> None:
            super().case_started(case)
            refs.append(case)

    report = await run_suite(
        agent, tmp_path, backend, options=RunOptions(parallel=2), progress=Starts()
    )

    assert [s.sent[0] for s in backend.sessions] == ["d0 t0", "c0 t0", "c1 t0"]
    assert [(ref.name, ref.position, ref.total) for ref in refs] == [
        ("d0", 3, 3),  # progress numbers the cases in file order
        ("c0", 1, 3),
        ("c1", 2, 3),
    ]
    assert [r.test_name for r in report.results] == ["c0", "c1", "d0"]
    assert all(r.passed for r in report.results)


async def test_parallel_one_still_runs_the_cases_in_file_order(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(1, 1) + multi_turn_cases(1, 3, prefix="d"))
    backend = FakeBackend()
    await run_suite(agent, tmp_path, backend)
    assert [s.sent[0] for s in backend.sessions] == ["c0 t0", "d0 t0"]
