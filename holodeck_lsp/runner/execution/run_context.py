"""What every case of one run shares (runner/execution/case_runner.py runs each case with it;
the executor makes one per lane): the agent as this lane runs it, its backend, graders and
judges, the time limits, and the run's cancel switch."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from holodeck_lsp.engine.turn_grading import GraderFn, GradingOptions
from holodeck_lsp.runner.backends.base import AgentBackend
from holodeck_lsp.runner.execution.events import ProgressSink
from holodeck_lsp.runner.judges.pool import JudgePool
from holodeck_lsp.schema.agent import Agent


@dataclass(slots=True)
class RunContext:
    """What every case of one run shares."""

    agent: Agent
    agent_dir: Path
    backend: AgentBackend
    graders: Mapping[str, GraderFn]
    grading: GradingOptions
    llm_timeout: float | None
    cancel: asyncio.Event
    #: Completes when `cancel` is set; every wait races against it.
    cancelled: asyncio.Future[Any]
    progress: ProgressSink | None = None
    #: The run's judges; None grades judged metrics as skipped.
    judges: JudgePool | None = None
    #: `is_retrieval` MCP servers: their results are a turn's retrieval_context when the
    #: turn has none (gathered over the session so far, as upstream does).
    retrieval_tools: frozenset[str] = frozenset()
    #: The model answering, `provider:name`: stamped on each case's result.
    model: str | None = None
