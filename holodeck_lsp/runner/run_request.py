"""What a caller asks a run session for (`RunRequest`, with where the answers come from) and
what it gets back (`RunOutcome`, or one of the two errors). Plain data: the CLI and the editor
build requests without importing the session's machinery.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from holodeck_lsp.runner.cassette import Cassette
from holodeck_lsp.runner.execution.early_stop import StopReason
from holodeck_lsp.runner.execution.events import CaseJournal, CaseKey
from holodeck_lsp.runner.models.model_matrix import ModelRef
from holodeck_lsp.runner.selection import PlannedCase, Selection
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestReport, TestResult

# -- where the answers come from --------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Live:
    """Send the turns to the agent's backend (built from `model:`, overrides applied);
    `record`: also keep what it answered, as a cassette."""

    record: bool = False
    #: "Replay the user, live agent": a recording whose simulated users' messages are sent
    #: to the live agent (docs/simulated-users.md, "Replay the user to a new agent").
    replay_user: Path | None = None


@dataclass(frozen=True, slots=True)
class Replay:
    """Answer from the cassette file at `path` (no backend, no network)."""

    path: Path


@dataclass(frozen=True, slots=True)
class Transcript:
    """Answer from answers already at hand (re-grading: nothing is sent to the agent)."""

    cassette: Cassette


Answers = Live | Replay | Transcript


@dataclass(frozen=True, slots=True)
class RunRequest:
    agent: Agent
    #: The agent file (its folder holds the tools, graders and files the cases use).
    agent_path: Path
    answers: Answers = Live()
    selection: Selection = field(default_factory=Selection)
    #: `holodeck.backends`-style overrides of `model:` for a live run (see backend_overrides).
    backend_overrides: Mapping[str, Any] = field(default_factory=dict)
    #: Cases at once; None: `execution.parallel_test_cases`, else the environment, else 1.
    parallel: int | None = None
    #: Seconds a code grader may run; None: $HOLODECK_GRADER_TIMEOUT, else 30.
    grader_timeout: float | None = None
    #: The agent file's text as it was loaded, when that is not the file on disk (an editor
    #: buffer): scanned for `${VAR}` secrets instead of the file.
    agent_text: str | None = None
    #: The environment secrets are looked for in (default: this process's).
    env: Mapping[str, str] | None = None
    #: Judge the judged metrics again instead of reusing the recorded verdicts (a replay
    #: or re-grade with new criteria on the same answers).
    rejudge: bool = False
    #: Judge calls at once; None: $HOLODECK_JUDGE_CONCURRENCY, else 8.
    judge_concurrency: int | None = None
    #: Stop at the first failing case: the cases still running are cancelled (their
    #: unanswered turns reported as `cancelled`), no new case starts.
    fail_fast: bool = False
    #: A model matrix (live runs only): the suite once per model, the agent's `model:`
    #: switched (runner/model_matrix); empty: the agent's own model.
    models: tuple[ModelRef, ...] = ()
    #: Independent sessions per case (per model), `--repeat N`.
    repeat: int = 1
    #: The cases `selection` plans to, when the caller planned them already (the CLI does,
    #: for its first line): planned once per run, not once per layer.
    planned: tuple[PlannedCase, ...] | None = None
    #: Budgets (`--max-cost USD`, `--max-turns N`): no case starts once it would pass them;
    #: the cases in flight finish and the run is stopped early (runner/run_budget/).
    max_cost: float | None = None
    max_turns: int | None = None
    #: holodeck-lsp.yaml `prices:` (`provider:model` -> {input, output} USD per 1M tokens),
    #: over the shipped price list.
    prices: Mapping[str, Mapping[str, float]] = field(default_factory=dict)
    #: Where each case session that finished is kept as it finishes (the run's journal).
    journal: CaseJournal | None = None
    #: A resumed run: the case sessions it has already (from its journal), not run again.
    finished: Mapping[CaseKey, TestResult] = field(default_factory=dict)
    #: `--trace` (True) / `--no-trace` (False); None: the agent's `observability:` block
    #: decides (runner/tracing/settings.py).
    trace: bool | None = None


class RunCannotStart(Exception):
    """Nothing was run: no case to run, no usable backend, an unreadable cassette, a bad
    override. The message says why (secrets masked) and is meant to be shown as is."""


class RunFailed(Exception):
    """The run itself crashed (a bug: everything a backend or grader does fails its case
    only). The message is the error, `Type: message`, secrets masked."""


@dataclass(frozen=True, slots=True)
class RunOutcome:
    #: The report, secrets masked.
    report: TestReport
    #: With `Live(record=True)`: what the backend answered (and what the judges said),
    #: secrets masked.
    recording: Cassette | None = None
    #: A live run where every send failed to reach the model's server: why (secrets masked).
    #: The CLI exits 3 on it; the run did not test the agent at all.
    unreachable: str | None = None
    #: With `fail_fast`: the label of the case whose failure stopped the run.
    stopped_after: str | None = None
    #: With a budget: why the run stopped starting cases (`stopped: --max-cost …`).
    stop_reason: str | None = None
    #: Why the run stopped before every case had run (None: it did not); such a run is
    #: unfinished and `run --resume` runs the rest.
    stopped: StopReason | None = None
    #: What the stop's cause said (a budget's figures), secrets masked.
    stop_detail: str = ""
