"""The trusted probe's child process (checker/graders/child_process.py): a real process and a
real pipe; the results file read back whatever state a kill left it in."""

from __future__ import annotations

import os
import sys
from pathlib import Path

from holodeck_lsp.checker.graders.child_process import TailReader, read_records, run_child


def test_tail_reader_keeps_only_the_last_bytes() -> None:
    read_end, write_end = os.pipe()
    reader = TailReader(os.fdopen(read_end, "rb"), limit=10)
    reader.start()
    os.write(write_end, b"0123456789" * 50 + b"ABCDEFGHIJ")
    os.close(write_end)
    reader.join(timeout=5)
    assert not reader.is_alive()
    assert reader.text() == "ABCDEFGHIJ"


def test_read_records_skips_cut_lines_and_records_without_a_spec(tmp_path: Path) -> None:
    path = tmp_path / "results.jsonl"
    path.write_text(
        '{"spec": "a:f", "status": "started"}\n'
        '["not", "a", "record"]\n'
        '{"status": "ok"}\n'
        '{"spec": 3}\n'
        '{"spec": "a:f", "status": "ok"}\n'
        '{"spec": "b:f", "sta',  # the kill came mid-line
        encoding="utf-8",
    )
    assert read_records(path) == [
        {"spec": "a:f", "status": "started"},
        {"spec": "a:f", "status": "ok"},
    ]
    assert read_records(tmp_path / "never-written.jsonl") == []


def test_run_child_reports_exit_code_and_stderr(tmp_path: Path) -> None:
    script = "import sys; sys.stderr.write('bye\\n'); sys.exit(4)"
    outcome = run_child([sys.executable, "-c", script], tmp_path, timeout=30)
    assert (outcome.returncode, outcome.timed_out, outcome.start_error) == (4, False, None)
    assert outcome.stderr == "bye\n"


def test_run_child_that_cannot_start(tmp_path: Path) -> None:
    outcome = run_child([str(tmp_path / "no-python")], tmp_path, timeout=30)
    assert outcome.returncode is None
    assert outcome.start_error is not None
    assert outcome.start_error.startswith(f"could not start {tmp_path / 'no-python'} in ")
