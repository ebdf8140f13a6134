"""Reading what the trusted probe left behind — its result records and how the child ended —
as one problem (or None) per grader. Pure: no process, no file."""

from __future__ import annotations

import re
import signal
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.graders.child_process import ChildOutcome
from holodeck_lsp.checker.graders.problems import (
    GraderProblem,
    attribute_missing,
    not_callable,
    py_suffix_problem,
    with_article,
)
from holodeck_lsp.schema.codes import Code

_SUMMARY_LIMIT = 300


def stderr_summary(stderr: str, agent_dir: Path) -> str | None:
    """The most telling line of the child's stderr: a fatal error (with the agent file it
    happened in, from the faulthandler traceback), else the last line."""
    lines = [line.strip() for line in stderr.splitlines() if line.strip()]
    if not lines:
        return None
    fatal = next((line for line in lines if line.startswith("Fatal Python error")), None)
    if fatal is None:
        return lines[-1][:_SUMMARY_LIMIT]
    frame = re.compile(r'File "(' + re.escape(str(agent_dir)) + r'[^"]*)", line (\d+)')
    where = next((m for line in lines if (m := frame.search(line))), None)
    summary = f"{fatal} at {where[1]}:{where[2]}" if where else fatal
    return summary[:_SUMMARY_LIMIT]


@dataclass(frozen=True, slots=True)
class ProbeReport:
    """Turns the child's records and fate into one problem (or None) per grader."""

    agent_dir: Path
    python: str
    timeout: float
    outcome: ChildOutcome
    stderr_summary: str | None

    def interpret(
        self, specs: Sequence[str], records: Sequence[Mapping[str, Any]]
    ) -> dict[str, GraderProblem | None]:
        finished = {r["spec"]: r for r in records if r.get("status") != "started"}
        started = [r["spec"] for r in records if r.get("status") == "started"]
        in_progress = started[-1] if started and started[-1] not in finished else None
        return {
            spec: self.from_record(spec, finished[spec])
            if spec in finished
            else self.unfinished(spec, in_progress)
            for spec in specs
        }

    def from_record(self, spec: str, record: Mapping[str, Any]) -> GraderProblem | None:
        module, _, attribute = spec.partition(":")
        status = record.get("status")
        detail = str(record.get("detail") or "")
        looked_in = str(record.get("file") or f"namespace package '{module}'")
        if status == "ok":
            return None
        if status == "module_not_found":
            return py_suffix_problem(module, attribute) or self.module_not_found(
                module, detail, record.get("missing")
            )
        if status == "import_error":
            return GraderProblem(
                Code.GRADER_MODULE_NOT_FOUND, f"importing module '{module}' failed: {detail}"
            )
        if status == "attribute_missing":
            suggestion = record.get("suggestion")
            suggestion = suggestion if isinstance(suggestion, str) else None
            return attribute_missing(module, attribute, looked_in, suggestion)
        if status == "not_callable":
            what = with_article(str(record.get("type") or "object"))
            return not_callable(spec, attribute, what, f"looked in {looked_in}")
        if status == "attribute_error":
            return GraderProblem(
                Code.GRADER_IMPORT_FAILED,
                f"reading '{attribute}' from module '{module}' raised {detail}",
            )
        return GraderProblem(
            Code.GRADER_IMPORT_FAILED,
            f"importing module '{module}' for grader '{spec}' raised {detail or 'an error'}; "
            "fix the module so that importing it succeeds",
        )

    def module_not_found(self, module: str, detail: str, missing: object) -> GraderProblem:
        if not isinstance(missing, str) or module == missing or module.startswith(missing + "."):
            fix = "fix the module path"
            if "." not in module:
                fix += f" or create {self.agent_dir / module}.py"
            message = (
                f"module '{module}' not found ({detail}; looked in {self.agent_dir} first, then "
                f"on the Python path of {self.python}); {fix}"
            )
        else:
            # The grader's module exists; something it imports does not.
            message = (
                f"module '{module}' was found but importing it failed: {detail}; install "
                f"'{missing.partition('.')[0]}' in the Python environment HoloDeck runs with "
                f"(checked with {self.python})"
            )
        return GraderProblem(Code.GRADER_MODULE_NOT_FOUND, message)

    def unfinished(self, spec: str, in_progress: str | None) -> GraderProblem:
        """A grader without a result: the child never started, hung, or died."""
        if self.outcome.start_error is not None:
            return GraderProblem(
                Code.GRADER_IMPORT_FAILED,
                f"grader '{spec}' not checked: {self.outcome.start_error}",
            )
        cause = self.cause()
        if in_progress == spec:
            module = spec.partition(":")[0]
            advice = (
                "does it block at import time?"
                if self.outcome.timed_out
                else "a module must not exit or crash while being imported"
            )
            message = f"importing module '{module}' for grader '{spec}' failed: {cause}; {advice}"
        elif in_progress is not None:
            message = f"grader '{spec}' not checked: {cause} while importing grader '{in_progress}'"
        else:
            message = f"grader '{spec}' not checked: {cause} before reporting any result"
        return GraderProblem(Code.GRADER_IMPORT_FAILED, message)

    def cause(self) -> str:
        if self.outcome.timed_out:
            return f"import timed out after {self.timeout:g}s"
        code = self.outcome.returncode
        if code is not None and code < 0:
            try:
                ended = f"the Python process was killed by {signal.Signals(-code).name}"
            except ValueError:
                ended = f"the Python process was killed by signal {-code}"
        else:
            ended = f"the Python process exited with code {code}"
        return f"{ended} ({self.stderr_summary})" if self.stderr_summary else ended
