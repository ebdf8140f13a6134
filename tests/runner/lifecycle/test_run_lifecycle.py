"""The run lifecycle (runner/lifecycle/) on a real suite and cassette, without a front end:
prepare (last-failed, a bad selection, a resume), start (the journal, the session), finish
(unfinished accounting, the stored run, the last-failed file)."""

from __future__ import annotations

import asyncio
from datetime import datetime
from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import load_agent_file
from holodeck_lsp.runner.lifecycle.finishing import FinishedRun, finish_run
from holodeck_lsp.runner.lifecycle.preparing import BadRunRequest, prepare_run
from holodeck_lsp.runner.lifecycle.request import LifecycleRequest, ResumeAsked
from holodeck_lsp.runner.lifecycle.starting import start_run
from holodeck_lsp.runner.run_history import last_failed
from holodeck_lsp.runner.run_history.journal import read_journal
from holodeck_lsp.runner.run_request import Replay, RunCannotStart, RunRequest
from holodeck_lsp.runner.run_session import RunSession
from tests.runner.run_history.history_suite import run_folders, write_suite


def _request(folder: Path, **fields: object) -> LifecycleRequest:
    path = folder / "agent.yaml"
    loaded = load_agent_file(path)
    assert loaded.agent is not None
    return LifecycleRequest(loaded.agent, path, **fields)  # type: ignore[arg-type]


def _run(request: LifecycleRequest, *, cancelled: bool = False) -> FinishedRun:
    """The lifecycle end to end, as a front end drives it."""
    warnings: list[str] = []
    started = start_run(prepare_run(request), now=datetime.now().astimezone(), warn=warnings.append)

    async def go() -> object:
        cancel = asyncio.Event()
        if cancelled:
            cancel.set()
        return await started.session.run(None, cancel)

    outcome = asyncio.run(go())
    done = finish_run(started, outcome, warn=warnings.append)  # type: ignore[arg-type]
    assert warnings == []
    return done


def test_a_run_is_journaled_stored_and_counted_for_last_failed(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path, ("206588", "wrong", "yes"))
    done = _run(_request(tmp_path, replay=cassette))
    assert not done.unfinished and (done.done, done.sessions) == (2, 2)
    assert done.stored is not None and done.outcome.report.run_id == done.stored.id
    [folder] = run_folders(tmp_path)
    journal = read_journal(folder / "journal.jsonl")
    assert journal.header.sessions == 2 and journal.header.mode == "replay"
    assert set(journal.finished) == {(0, None, None), (1, None, None)}
    last = last_failed.load(tmp_path / "agent.yaml")
    assert last is not None and last.failed == ("sums",)


def test_last_failed_chooses_the_cases_and_says_so(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path, ("206588", "wrong", "yes"))
    prepared = prepare_run(_request(tmp_path, replay=cassette, last_failed=True))
    assert prepared.notes == ("no earlier run recorded: running every case",)
    _run(_request(tmp_path, replay=cassette))
    prepared = prepare_run(_request(tmp_path, replay=cassette, last_failed=True))
    assert prepared.notes == ("running the 1 case(s) that failed last time",)
    assert [item.case.name for item in prepared.planned] == ["sums"]
    assert prepared.work.sessions == 1


def test_without_saving_nothing_is_journaled_or_stored(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path)
    done = _run(_request(tmp_path, replay=cassette, save=False, count_last_failed=False))
    assert done.stored is None and not (tmp_path / ".holodeck" / "runs").exists()
    assert last_failed.load(tmp_path / "agent.yaml") is None


def test_a_cancelled_run_is_unfinished_and_resumes_with_what_is_left(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path)
    done = _run(_request(tmp_path, replay=cassette), cancelled=True)
    assert done.unfinished and done.outcome.report.interrupted and done.done == 0
    assert done.stored is not None and done.stored.meta.stopped == "interrupted"
    resumed = prepare_run(_request(tmp_path, resume=ResumeAsked(done.stored.id)))
    assert resumed.resumed is not None and resumed.resumed.run.id == done.stored.id
    # The journal's answers: the same cassette, absolute.
    assert resumed.answers == Replay(cassette.resolve())
    again = _run(_request(tmp_path, resume=ResumeAsked(done.stored.id)))
    assert not again.unfinished and again.stored is not None
    assert again.stored.id == done.stored.id and (again.done, again.sessions) == (2, 2)


def test_bad_requests_are_refused_before_anything_starts(tmp_path: Path) -> None:
    write_suite(tmp_path)
    with pytest.raises(BadRunRequest, match="nope"):
        prepare_run(_request(tmp_path, cases=("nope",)))
    with pytest.raises(BadRunRequest, match="no unfinished run"):
        prepare_run(_request(tmp_path, resume=ResumeAsked()))


def test_a_session_that_cannot_start_leaves_no_run_folder(tmp_path: Path) -> None:
    write_suite(tmp_path)
    prepared = prepare_run(_request(tmp_path, replay=tmp_path / "missing.json"))

    def opener(request: RunRequest) -> RunSession:
        assert request.journal is not None  # the journal was open when the session was asked
        return RunSession.open(request)

    with pytest.raises(RunCannotStart):
        start_run(prepared, now=datetime.now().astimezone(), warn=print, open_session=opener)
    assert run_folders(tmp_path) == []
