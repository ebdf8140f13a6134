"""The run journal (runner/run_history/journal.py) on real files: records read back after
the writer is gone, a torn last line ignored and cut before the next append, a corrupt
middle line refused with the cause and the fix, and an unfinished run listed as such."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest

from holodeck_lsp.runner.run_history.journal import (
    JournalHeader,
    JournalUnreadable,
    read_journal,
    reopen_journal,
    start_journal,
)
from holodeck_lsp.runner.run_history.layout import runs_folder
from holodeck_lsp.runner.run_history.listing import scan
from holodeck_lsp.runner.run_history.unfinished import journal_progress
from holodeck_lsp.schema.results import TestResult


def _header(sessions: int = 3) -> JournalHeader:
    return JournalHeader(
        run_id="",
        started=datetime(2026, 12, 3, 12, 0, 0).astimezone().isoformat(),
        agent_file="agent.yaml",
        agent_name="suite",
        fingerprint={"agent.yaml": "abc"},
        repeat=1,
        sessions=sessions,
        pid=999_999_999,  # no such process: the run reads as crashed, not running
    )


def _result(index: int, passed: bool) -> TestResult:
    return TestResult(test_name=f"case{index}", test_index=index, passed=passed)


def test_records_survive_the_writer_and_a_torn_last_line_is_ignored(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text("name: suite\n", "utf-8")
    journal = start_journal(agent, _header())
    journal.record((0, None, None), _result(0, True))
    journal.record((1, None, None), _result(1, False))
    # No close: as after kill -9, the fsync'd lines are all there is. Then a torn write.
    with journal.path.open("ab") as file:
        file.write(b'{"kind":"case","key":[2,null,null],"result":{"test_na')
    contents = read_journal(journal.path)
    assert contents.torn
    assert contents.header.run_id == journal.run_id == journal.folder.name
    assert {key: r.passed for key, r in contents.finished.items()} == {
        (0, None, None): True,
        (1, None, None): False,
    }
    assert journal_progress(journal.folder) == (2, 3)


def test_a_resume_cuts_the_torn_line_and_its_records_win(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text("name: suite\n", "utf-8")
    journal = start_journal(agent, _header())
    journal.record((1, None, None), _result(1, False))
    journal.close()
    with journal.path.open("ab") as file:
        file.write(b'{"kind":"ca')
    again = reopen_journal(journal.folder, journal.header.model_copy(update={"sessions": 3}))
    again.record((1, None, None), _result(1, True))
    again.record((2, None, None), _result(2, True))
    again.close()
    contents = read_journal(journal.path)
    assert not contents.torn
    assert {key[0]: r.passed for key, r in contents.finished.items()} == {1: True, 2: True}
    assert b'{"kind":"ca{' not in journal.path.read_bytes()


def test_a_corrupt_line_before_the_last_is_refused_with_the_fix(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text("name: suite\n", "utf-8")
    journal = start_journal(agent, _header())
    journal.close()
    with journal.path.open("ab") as file:
        file.write(b"not json\n")
    with pytest.raises(JournalUnreadable) as caught:
        read_journal(journal.path)
    message = str(caught.value)
    assert "line 2 is not a journal record" in message and "run the suite again" in message


def test_a_run_with_only_a_journal_is_listed_as_unfinished(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text("name: suite\n", "utf-8")
    journal = start_journal(agent, _header())
    journal.record((0, None, None), _result(0, True))
    listing = scan(runs_folder(agent), "agent.yaml")
    assert not listing.unreadable
    (run,) = listing.runs
    assert run.id == journal.run_id and run.unfinished and run.never_stored
    assert run.meta.stopped == "crashed"
