"""Storing one run: its three files written into a hidden temporary folder, which is then
renamed to the run's id — a rename is atomic, so a crash (or a full disk) leaves either the
whole run or no run, never half of one. Every text written has gone through the run's
redactor (the report and recording were masked by run_session; the text is masked again, as
run_command does for every file it writes, and run.json holds paths and git state only)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

from holodeck_lsp import __version__
from holodeck_lsp.checker.file_reading import read_file_bytes
from holodeck_lsp.reports.run import json_report
from holodeck_lsp.runner.cassette import Cassette, transcript_of
from holodeck_lsp.runner.run_history.layout import (
    PARTIAL_PREFIX,
    RECORDING_FILE,
    REPORT_FILE,
    RUN_FILE,
    RUNS,
    new_run_id,
    state_folder,
)
from holodeck_lsp.runner.run_history.metadata import Counts, GitState, RunMetadata
from holodeck_lsp.runner.run_history.stored import StoredRun
from holodeck_lsp.runner.secrets import Redactor
from holodeck_lsp.schema.results import TestReport, TestResult

#: Attempts at a fresh id when another run took the one drawn (the same second, same digits).
_ATTEMPTS = 20


@dataclass(frozen=True, slots=True)
class RunToStore:
    agent_path: Path
    #: Masked by run_session; `run_id` and `interrupted` are set here.
    report: TestReport
    started: datetime
    ended: datetime
    #: `run --record`'s cassette (masked); None: the recording is made from the report.
    recording: Cassette | None = None
    mode: str = "live"
    replay_of: Path | None = None
    interrupted: bool = False
    git: GitState | None = None
    #: `provider:name` of the model(s) run, when the report does not name them.
    models: tuple[str, ...] = ()
    #: The run's id when its folder exists already (it kept a journal while it ran; a
    #: resumed run): the files are written into it. None: a new id and folder.
    run_id: str | None = None
    #: Why it stopped early (runner/execution/early_stop.py), for run.json.
    stopped: str | None = None


def save_run(run: RunToStore, redactor: Redactor) -> StoredRun:
    """Store `run` under `.holodeck/runs/<new id>/`. Raises OSError (nothing is left behind)."""
    agent_dir = run.agent_path.parent
    runs = state_folder(agent_dir) / RUNS
    runs.mkdir(exist_ok=True)
    if run.run_id is not None:
        return _save_into(runs / run.run_id, run, redactor)
    taken = {entry.name for entry in runs.iterdir()}
    run_id = new_run_id(run.started, taken)
    report = run.report.model_copy(update={"run_id": run_id, "interrupted": run.interrupted})
    recordings = (
        {RECORDING_FILE: run.recording} if run.recording is not None else recordings_of(report)
    )
    meta = _metadata(run, report, run_id)
    temporary = runs / f"{PARTIAL_PREFIX}{run_id}-{os.getpid()}"
    try:
        temporary.mkdir()
        files = {
            REPORT_FILE: json_report.render(report),
            **{name: cassette.render() for name, cassette in recordings.items()},
            RUN_FILE: json.dumps(meta.model_dump(mode="json"), indent=2) + "\n",
        }
        for name, text in files.items():
            (temporary / name).write_text(redactor.text(text), encoding="utf-8")
        for _ in range(_ATTEMPTS):
            try:
                # Renaming onto an existing non-empty folder fails: ids never collide.
                temporary.rename(runs / run_id)
                break
            except OSError:
                if not (runs / run_id).exists():
                    raise
                run_id = _renamed(temporary, run_id, runs, run, redactor)
        else:
            raise OSError(f"no free run id for {run.started.isoformat()}")
    finally:
        if temporary.exists():
            shutil.rmtree(temporary, ignore_errors=True)
    stored = runs / run_id
    return StoredRun(stored, RunMetadata.model_validate_json(read_file_bytes(stored / RUN_FILE)))


def _save_into(folder: Path, run: RunToStore, redactor: Redactor) -> StoredRun:
    """Write the run's files into its existing folder (beside its journal): each file written
    aside then renamed over the old one, run.json last — a listing reads run.json first, so
    it sees the run as it was or as it is, never half of each. Raises OSError."""
    run_id = folder.name
    report = run.report.model_copy(update={"run_id": run_id, "interrupted": run.interrupted})
    recordings = (
        {RECORDING_FILE: run.recording} if run.recording is not None else recordings_of(report)
    )
    meta = _metadata(run, report, run_id)
    files = {
        REPORT_FILE: json_report.render(report),
        **{name: cassette.render() for name, cassette in recordings.items()},
        RUN_FILE: json.dumps(meta.model_dump(mode="json"), indent=2) + "\n",
    }
    for name, text in files.items():
        aside = folder / f"{PARTIAL_PREFIX}{name}-{os.getpid()}"
        try:
            aside.write_text(redactor.text(text), encoding="utf-8")
            aside.replace(folder / name)
        finally:
            aside.unlink(missing_ok=True)
    return StoredRun(folder, RunMetadata.model_validate_json(read_file_bytes(folder / RUN_FILE)))


def _renamed(temporary: Path, old_id: str, runs: Path, run: RunToStore, redactor: Redactor) -> str:
    """Another run took `old_id` while this one was being written: draw a new id and rewrite
    the files that name it."""
    taken = {entry.name for entry in runs.iterdir()} | {old_id}
    run_id = new_run_id(run.started, taken)
    report = run.report.model_copy(update={"run_id": run_id, "interrupted": run.interrupted})
    meta = _metadata(run, report, run_id)
    (temporary / REPORT_FILE).write_text(redactor.text(json_report.render(report)), "utf-8")
    text = json.dumps(meta.model_dump(mode="json"), indent=2) + "\n"
    (temporary / RUN_FILE).write_text(redactor.text(text), "utf-8")
    return run_id


def recordings_of(report: TestReport) -> dict[str, Cassette]:
    """The run as cassettes, by file name: a cassette answers each case once, so a model
    matrix keeps one per model — the first model's in `recording.json`, each other's in
    `recording.<model>.json` — and with `--repeat N` the first repeat's answers."""
    by_model: dict[str | None, list[TestResult]] = {}
    for result in report.results:
        if result.repeat is None or result.repeat == 1:
            by_model.setdefault(result.model, []).append(result)
    if not by_model:
        return {RECORDING_FILE: recording_of(report)}
    files: dict[str, Cassette] = {}
    for number, (model, results) in enumerate(by_model.items()):
        name = RECORDING_FILE if number == 0 else f"recording.{_file_safe(model or '')}.json"
        files[name] = recording_of(report.model_copy(update={"results": results}))
    return files


def _file_safe(model: str) -> str:
    """`ollama:qwen2.5:7b` → `ollama_qwen2.5_7b`: a file name on every system."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", model).strip("._") or "model"


def recording_of(report: TestReport) -> Cassette:
    """The run as a cassette: each result's answers (up to its first turn never sent)."""
    cases = []
    for position, result in enumerate(report.results):
        index = result.test_index if result.test_index is not None else position
        case = transcript_of(result, index)
        case.name = result.test_name
        cases.append(case)
    models = {result.model for result in report.results if result.model is not None}
    model = models.pop() if len(models) == 1 else None
    return Cassette(agent=report.agent_name, model=model, cases=cases)


def _metadata(run: RunToStore, report: TestReport, run_id: str) -> RunMetadata:
    agent_dir = run.agent_path.parent
    models = list(report.models) or _models_of(report) or list(run.models)
    turns = [turn for result in report.results for turn in result.turn_results()]
    return RunMetadata(
        id=run_id,
        started=run.started.isoformat(),
        ended=run.ended.isoformat(),
        agent_file=run.agent_path.name,
        agent_name=report.agent_name,
        agent_sha256=_sha256(run.agent_path),
        models=models,
        repeats=report.repeats,
        mode=run.mode,
        replay_of=_relative(run.replay_of, agent_dir) if run.replay_of is not None else None,
        git_commit=run.git.commit if run.git is not None else None,
        git_dirty=run.git.dirty if run.git is not None else None,
        interrupted=run.interrupted,
        stopped=run.stopped,
        holodeck_lsp_version=__version__,
        cases=Counts(passed=report.summary.passed, total=report.summary.total_tests),
        turns=Counts(passed=sum(t.passed for t in turns), total=len(turns)),
        cases_not_run=report.summary.not_run,
    )


def _models_of(report: TestReport) -> list[str]:
    """Before the model matrix: each result names its model, or nothing does."""
    seen: dict[str, None] = {}
    for result in report.results:
        if result.model:
            seen.setdefault(result.model, None)
    return list(seen)


def _sha256(path: Path) -> str | None:
    try:
        return hashlib.sha256(read_file_bytes(path)).hexdigest()
    except OSError:
        return None


def _relative(path: Path, base: Path) -> str:
    """`path` relative to the agent folder when it is inside it, else absolute: a replay of
    the project's own cassette still names it after the project moved."""
    absolute = path.resolve()
    try:
        return absolute.relative_to(base.resolve()).as_posix()
    except ValueError:
        return str(absolute)
