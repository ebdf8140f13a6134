"""Trusted grader resolution: a real import, as HoloDeck does it, in one child process with a
timeout — for workspaces the user has declared trusted. This process never imports user code:
the child runs `_probe.py`'s source, and `probe_report.py` reads what it left behind."""

from __future__ import annotations

import sys
import tempfile
from collections.abc import Iterable
from functools import cache
from pathlib import Path

from holodeck_lsp.checker.graders.child_process import read_records, run_child
from holodeck_lsp.checker.graders.probe_report import ProbeReport, stderr_summary
from holodeck_lsp.checker.graders.problems import GraderProblem, bad_path, parse_grader_path

_PROBE_FILE = Path(__file__).with_name("_probe.py")


@cache
def _probe_source() -> str:
    return _PROBE_FILE.read_text(encoding="utf-8")


def resolve_graders_trusted(
    specs: Iterable[str],
    agent_dir: Path,
    timeout: float = 10.0,
    *,
    python: str | Path | None = None,
) -> dict[str, GraderProblem | None]:
    """Check each grader path by importing it as HoloDeck would, in one child process.

    The child runs `python` (default: this interpreter) with the agent's folder as working
    directory and first on `sys.path`. `timeout` bounds the whole run: graders not resolved by
    then get GRADER_IMPORT_FAILED, and the child (with anything it spawned) is killed.
    """
    agent_dir = agent_dir.absolute()
    ordered = list(dict.fromkeys(specs))
    valid = [spec for spec in ordered if parse_grader_path(spec) is not None]
    probed = _probe(valid, agent_dir, timeout, str(python or sys.executable)) if valid else {}
    return {spec: probed[spec] if spec in probed else bad_path(spec) for spec in ordered}


def _probe(
    specs: list[str], agent_dir: Path, timeout: float, python: str
) -> dict[str, GraderProblem | None]:
    with tempfile.TemporaryDirectory(prefix="holodeck-graders-") as tmp:
        results_file = Path(tmp) / "results.jsonl"
        # -c with the source rather than -m: no holodeck_lsp package is loaded next to user
        # code, and our directory never lands on the child's sys.path.
        command = [python, "-B", "-X", "faulthandler", "-c", _probe_source()]
        command += [str(results_file), str(agent_dir), *specs]
        outcome = run_child(command, agent_dir, timeout)
        records = read_records(results_file)
    summary = stderr_summary(outcome.stderr, agent_dir)
    return ProbeReport(agent_dir, python, timeout, outcome, summary).interpret(specs, records)
