"""What a front end asks the run lifecycle for: the run of one agent file, in the terms of
`holodeck-lsp run`'s flags (the editor asks with the same fields). Plain data."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holodeck_lsp.runner.cassette import Cassette
from holodeck_lsp.runner.run_history.retention import DEFAULT_KEEP
from holodeck_lsp.runner.shards import Shard
from holodeck_lsp.schema.agent import Agent


@dataclass(frozen=True, slots=True)
class ResumeAsked:
    """`run --resume [RUN]`: finish a stored run (runner/run_history/resume.py)."""

    #: The run's id (or a prefix); None: the agent file's latest unfinished run.
    ref: str | None = None
    force: bool = False
    retry_errored: bool = False


@dataclass(frozen=True, slots=True)
class LifecycleRequest:
    agent: Agent
    #: The agent file (its folder holds `.holodeck/`, the tools, graders and files).
    agent_path: Path
    #: `--case` selectors (names, positions, globs), `--turn`, `-k`.
    cases: tuple[str, ...] = ()
    #: A case by its position in `test_cases` (the editor's lenses), instead of `cases`.
    case_index: int | None = None
    turn: int | None = None
    keyword: str | None = None
    #: Run the cases that failed in the agent file's last run (runner/run_history/last_failed).
    last_failed: bool = False
    #: `--model` values; None: config.yaml's `models:` (when `configured_models`), else the
    #: agent's own model.
    models: tuple[str, ...] | None = None
    #: Whether config.yaml's `models:` list applies when no `--model` is given (the editor
    #: runs the agent's own model).
    configured_models: bool = True
    repeat: int | None = None
    #: Answers: live (recording them when `record`), a cassette file, or a transcript at
    #: hand (a re-grade).
    record: bool = False
    replay: Path | None = None
    transcript: Cassette | None = None
    rejudge: bool = False
    resume: ResumeAsked | None = None
    #: Journal and store the run in `.holodeck/runs/` (`--no-save`, `holodeck.saveRuns`).
    save: bool = True
    #: Stored runs kept per agent file (runner/run_history/retention.py).
    keep: int = DEFAULT_KEEP
    #: Write which cases failed, for the next `--last-failed` (a re-grade does not).
    count_last_failed: bool = True
    parallel: int | None = None
    grader_timeout: float | None = None
    fail_fast: bool = False
    max_cost: float | None = None
    max_turns: int | None = None
    retry_budget: int | None = None
    max_tool_rounds: int | None = None
    backend_overrides: Mapping[str, Any] = field(default_factory=dict)
    #: `--shard K/N`: this machine's share of the cases (runner/shards.py).
    shard: Shard | None = None
    #: `--replay-user`: a recording whose simulated users drive a live agent
    #: (docs/simulated-users.md).
    replay_user: Path | None = None
    #: `--trace` / `--no-trace`; None: the agent's `observability:` block decides
    #: (docs/observability.md).
    trace: bool | None = None
    #: The agent file's text when it is not the file on disk (an editor buffer).
    agent_text: str | None = None
