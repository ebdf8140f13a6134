"""The executor's early stop (runner/execution/early_stop.py) and resumed runs, in process
against the scripted backend: a drain lets the cases in flight finish and starts no other
(those are skipped, never sent); `finished` results are put in their place unsent."""

from __future__ import annotations

import asyncio
from pathlib import Path

from holodeck_lsp.runner.execution.early_stop import EarlyStop, StopReason
from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.runner.execution.executor import Lane, RunOptions, run_lanes
from holodeck_lsp.schema.results import TestResult, TurnResult
from tests.runner.fake_backend import FakeBackend, Reply, multi_turn_cases, write_agent


class _StopAfterFirst:
    """A budget's stand-in: once the first case finished, drain."""

    def __init__(self, stop: EarlyStop) -> None:
        self.stop = stop

    def case_started(self, case: CaseRef) -> None:
        pass

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        pass

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self.stop.stop(StopReason.BUDGET, "budget spent", finish_in_flight=True)


async def test_a_drain_finishes_the_cases_in_flight_and_starts_no_other(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(4, 1))
    backend = FakeBackend(replies={"c1 t0": Reply(delay=0.2)})
    stop = EarlyStop(asyncio.Event())
    report = await run_lanes(
        [Lane(agent, backend)],
        tmp_path,
        options=RunOptions(parallel=2),
        progress=_StopAfterFirst(stop),
        early_stop=stop,
    )
    sent = sorted(text for session in backend.sessions for text in session.sent)
    assert sent == ["c0 t0", "c1 t0"]  # c1 was in flight when c0 finished: it finished too
    assert [r.passed for r in report.results[:2]] == [True, True]
    for result in report.results[2:]:
        assert result.turns is not None
        assert result.turns[0].errors == ["skipped: not started: budget spent"]
    assert stop.stopped is StopReason.BUDGET
    assert not stop.cancel.is_set()


async def test_finished_results_are_kept_in_order_and_not_sent_again(tmp_path: Path) -> None:
    agent = write_agent(tmp_path, multi_turn_cases(3, 1))
    first = await run_lanes([Lane(agent, FakeBackend())], tmp_path)
    kept = {(1, None, None): first.results[1]}
    backend = FakeBackend()
    again = await run_lanes([Lane(agent, backend)], tmp_path, finished=kept)
    assert sorted(text for s in backend.sessions for text in s.sent) == ["c0 t0", "c2 t0"]
    assert [r.test_index for r in again.results] == [0, 1, 2]
    assert again.results[1] == first.results[1]
    assert again.summary.passed == 3
