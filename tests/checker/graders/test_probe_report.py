"""Reading the trusted probe's records and the child's fate (checker/graders/probe_report.py):
pure, so each way a child can end is pinned here without starting one."""

from __future__ import annotations

import signal
from pathlib import Path

from holodeck_lsp.checker.graders.child_process import ChildOutcome
from holodeck_lsp.checker.graders.probe_report import ProbeReport, stderr_summary
from holodeck_lsp.schema.codes import Code

AGENT = Path("/agents/demo")


def report(outcome: ChildOutcome, summary: str | None = None) -> ProbeReport:
    return ProbeReport(AGENT, "/usr/bin/python3", 2.5, outcome, summary)


def test_records_map_to_problems() -> None:
    records = [
        {"spec": "a:ok", "status": "started"},
        {"spec": "a:ok", "status": "ok"},
        {"spec": "a:x", "status": "attribute_missing", "file": "/agents/demo/a.py"},
        {"spec": "a:N", "status": "not_callable", "type": "int", "file": "/agents/demo/a.py"},
        {"spec": "b:f", "status": "attribute_error", "detail": "RuntimeError: no"},
        {"spec": "c:f", "status": "exception", "detail": "ValueError: boom"},
    ]
    results = report(ChildOutcome(returncode=0)).interpret(
        ["a:ok", "a:x", "a:N", "b:f", "c:f"], records
    )
    assert results["a:ok"] is None
    assert results["a:x"] is not None and results["a:x"].code is Code.GRADER_ATTRIBUTE_MISSING
    assert "(looked in /agents/demo/a.py)" in results["a:x"].message
    assert results["a:N"] is not None and "'N' is an int" in results["a:N"].message
    assert results["b:f"] is not None and results["b:f"].message == (
        "reading 'f' from module 'b' raised RuntimeError: no"
    )
    assert results["c:f"] is not None and results["c:f"].code is Code.GRADER_IMPORT_FAILED
    assert "raised ValueError: boom; fix the module" in results["c:f"].message


def test_module_not_found_tells_a_missing_module_from_a_missing_dependency() -> None:
    probe = report(ChildOutcome(returncode=0))
    own = probe.module_not_found("scoring", "No module named 'scoring'", "scoring")
    assert own.code is Code.GRADER_MODULE_NOT_FOUND
    assert f"create {AGENT / 'scoring'}.py" in own.message
    dotted = probe.module_not_found("pkg.scoring", "No module named 'pkg'", "pkg")
    assert "create" not in dotted.message  # only a top-level module is one file to create
    dependency = probe.module_not_found("scoring", "No module named 'numpy.linalg'", "numpy.linalg")
    assert "was found but importing it failed" in dependency.message
    assert "install 'numpy'" in dependency.message and "/usr/bin/python3" in dependency.message


def test_a_crash_blames_the_grader_being_imported_and_spares_the_rest() -> None:
    outcome = ChildOutcome(returncode=-signal.SIGSEGV)
    records = [
        {"spec": "a:f", "status": "started"},
        {"spec": "a:f", "status": "ok"},
        {"spec": "b:f", "status": "started"},
    ]
    results = report(outcome, "Fatal Python error: Segmentation fault").interpret(
        ["a:f", "b:f", "c:f"], records
    )
    assert results["a:f"] is None
    crashed = results["b:f"]
    assert crashed is not None and crashed.code is Code.GRADER_IMPORT_FAILED
    assert crashed.message == (
        "importing module 'b' for grader 'b:f' failed: the Python process was killed by "
        "SIGSEGV (Fatal Python error: Segmentation fault); a module must not exit or crash "
        "while being imported"
    )
    later = results["c:f"]
    assert later is not None and later.message.startswith("grader 'c:f' not checked: ")
    assert later.message.endswith("while importing grader 'b:f'")


def test_timeouts_unknown_signals_and_exits_before_any_result() -> None:
    timed_out = report(ChildOutcome(timed_out=True)).interpret(
        ["a:f"], [{"spec": "a:f", "status": "started"}]
    )["a:f"]
    assert timed_out is not None
    assert "import timed out after 2.5s; does it block at import time?" in timed_out.message
    assert report(ChildOutcome(returncode=-1000)).cause() == (
        "the Python process was killed by signal 1000"
    )
    early = report(ChildOutcome(returncode=1), "SyntaxError: x").interpret(["a:f"], [])["a:f"]
    assert early is not None and early.message == (
        "grader 'a:f' not checked: the Python process exited with code 1 (SyntaxError: x) "
        "before reporting any result"
    )


def test_a_child_that_never_started() -> None:
    problem = report(ChildOutcome(start_error="could not start /no/python")).unfinished("a:f", None)
    assert problem.code is Code.GRADER_IMPORT_FAILED
    assert problem.message == "grader 'a:f' not checked: could not start /no/python"


def test_stderr_summary_prefers_the_fatal_error_and_where_it_happened() -> None:
    stderr = (
        "Fatal Python error: Segmentation fault\n\n"
        "Current thread 0x1 (most recent call first):\n"
        '  File "/usr/lib/python3.11/ctypes/__init__.py", line 519 in string_at\n'
        f'  File "{AGENT}/crashes.py", line 2 in <module>\n'
    )
    assert stderr_summary(stderr, AGENT) == (
        f"Fatal Python error: Segmentation fault at {AGENT}/crashes.py:2"
    )
    assert stderr_summary("warning\n  last line  \n\n", AGENT) == "last line"
    assert stderr_summary(" \n", AGENT) is None
    summary = stderr_summary("x" * 1000, AGENT)
    assert summary is not None and len(summary) == 300
