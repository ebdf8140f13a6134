"""Which run `run --resume [RUN]` finishes, and what it already has: the checks that come
before anything runs (docs/running.md, "Resume").

A run can be resumed when it is unfinished and has a journal (runner/run_history/journal.py);
a finished one too, with `retry_errored` (its errored cases are run again). It is refused
when the agent file, its test cases, instructions or Python code (tools, graders) changed
since it started — the finished cases and the new ones would test different agents — unless
`force`. The cases run are the journal's selection, models and repeats, never new ones.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from holodeck_lsp.runner.execution.events import CaseKey
from holodeck_lsp.runner.run_history.fingerprint import changed, fingerprint
from holodeck_lsp.runner.run_history.journal import (
    JournalHeader,
    JournalUnreadable,
    read_journal,
)
from holodeck_lsp.runner.run_history.layout import pasteable, runs_folder
from holodeck_lsp.runner.run_history.listing import scan
from holodeck_lsp.runner.run_history.resolve import RunNotFound, resolve_in
from holodeck_lsp.runner.run_history.stored import StoredRun
from holodeck_lsp.runner.run_history.unfinished import RUNNING
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestResult

#: Files named in a refusal before "and N more".
_SHOWN = 5


class ResumeRefused(Exception):
    """The run cannot be resumed; the message says why, then what to do."""


@dataclass(slots=True)
class ResumePlan:
    run: StoredRun
    #: The journal's last header: what the run runs.
    header: JournalHeader
    #: The case sessions kept (errored ones dropped with `retry_errored`).
    finished: dict[CaseKey, TestResult] = field(default_factory=dict)
    #: Files that changed since the run started (non-empty only with `force`).
    changed: list[str] = field(default_factory=list)
    #: Errored case sessions that will run again (`retry_errored`).
    retried: int = 0


def plan_resume(
    agent: Agent,
    agent_path: Path,
    ref: str | None,
    *,
    force: bool = False,
    retry_errored: bool = False,
) -> ResumePlan:
    """The run to resume (`ref`, else the latest unfinished run of `agent_path`) and the
    cases it keeps. Raises ResumeRefused."""
    folder = runs_folder(agent_path)
    listing = scan(folder, agent_path.name)
    if ref is None:
        unfinished = [run for run in listing.runs if run.unfinished]
        if not unfinished:
            raise ResumeRefused(
                f"no unfinished run of {agent_path.name} to resume in {folder}; "
                f"`holodeck-lsp runs {pasteable(agent_path)}` lists its runs, "
                f"`holodeck-lsp run {pasteable(agent_path)}` starts a new one"
            )
        run = unfinished[-1]
    else:
        try:
            run = resolve_in(ref, listing, folder)
        except RunNotFound as error:
            raise ResumeRefused(str(error)) from None
    _check_resumable(run, retry_errored)
    try:
        contents = read_journal(run.journal_path)
    except JournalUnreadable as error:
        raise ResumeRefused(f"run {run.id} cannot be resumed: {error}") from None
    differing = changed(contents.header.fingerprint, fingerprint(agent, agent_path))
    if differing and not force:
        shown = ", ".join(differing[:_SHOWN])
        more = f" and {len(differing) - _SHOWN} more" if len(differing) > _SHOWN else ""
        raise ResumeRefused(
            f"run {run.id} cannot be resumed: {shown}{more} changed since it started, so its "
            "finished cases and the ones left would test different agents; run the suite "
            f"afresh (`holodeck-lsp run {pasteable(agent_path)}`), or pass --force to resume anyway"
        )
    finished = _same_cases(contents.finished, agent)
    retried = 0
    if retry_errored:
        kept = {key: result for key, result in finished.items() if not _errored(result)}
        retried = len(finished) - len(kept)
        finished = kept
    return ResumePlan(run, contents.header, finished, differing, retried)


def _check_resumable(run: StoredRun, retry_errored: bool) -> None:
    if run.meta.stopped == RUNNING:
        raise ResumeRefused(
            f"run {run.id} is still running (its process is alive); wait for it to end, or "
            "stop it (Ctrl-C) and resume it then"
        )
    if not run.journal_path.is_file():
        raise ResumeRefused(
            f"run {run.id} has no journal (it was stored by a holodeck-lsp older than "
            "`--resume`), so what it finished is not known; run the suite again"
        )
    if not run.unfinished and not retry_errored:
        raise ResumeRefused(
            f"run {run.id} finished: there is nothing to resume; add --retry-errored to run "
            "its errored cases again"
        )


def _same_cases(finished: dict[CaseKey, TestResult], agent: Agent) -> dict[CaseKey, TestResult]:
    """Journaled sessions whose case is still the one at that position (after `--force` over
    an edited suite, a moved case is run again rather than kept under another's name)."""
    cases = agent.test_cases or []
    return {
        key: result
        for key, result in finished.items()
        if key[0] < len(cases) and cases[key[0]].name == result.test_name
    }


def _errored(result: TestResult) -> bool:
    return result.errored or any(turn.errored for turn in result.turn_results())
