"""One model's part of a run session (runner/run_session.py): its backend — live (the
`holodeck.backends` overrides applied, a `--model` switched in), recording, or a cassette
replay — and its judges; closing it; and what the session says of the lanes after the run (a
model none of whose sends reached its server, the live verdicts next to a recording)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.checker.global_config import load_global_providers
from holodeck_lsp.engine.case_grading import turn_metrics, turn_specs
from holodeck_lsp.engine.evaluators.judges import JudgedMetric
from holodeck_lsp.engine.judging import judged
from holodeck_lsp.runner.backends.base import AgentBackend, BackendInitError
from holodeck_lsp.runner.backends.connection_watch import ConnectionCounts, WatchedBackend
from holodeck_lsp.runner.backends.overrides import OverrideError, with_backend_overrides
from holodeck_lsp.runner.cassette import (
    Cassette,
    CassetteFormatError,
    RecordedJudgements,
    RecordingBackend,
    ReplayBackend,
    load_cassette,
)
from holodeck_lsp.runner.execution.executor import Lane
from holodeck_lsp.runner.judges.pool import JudgeMode, JudgePool
from holodeck_lsp.runner.models.model_matrix import (
    ModelRef,
    ModelSpecError,
    as_recorded,
    model_label,
    with_model,
)
from holodeck_lsp.runner.run_request import Answers, Live, Replay, RunCannotStart, RunRequest
from holodeck_lsp.runner.secrets import Redactor
from holodeck_lsp.runner.selection import PlannedCase
from holodeck_lsp.schema.agent import Agent

_log = logging.getLogger("holodeck_lsp.runner.run_session")


@dataclass(frozen=True, slots=True)
class OpenLane:
    """One model's part of an open session: its lane and what the run needs to say about it."""

    lane: Lane
    judges: JudgePool
    label: str
    connections: ConnectionCounts | None = None

    async def aclose(self) -> None:
        try:
            await self.lane.backend.aclose()
        except Exception:
            _log.warning("closing the backend of %s failed", self.label, exc_info=True)
        try:
            await self.judges.aclose()
        except Exception:
            _log.warning("closing the judges' clients failed", exc_info=True)


def open_lane(
    request: RunRequest,
    ref: ModelRef | None,
    planned: list[PlannedCase],
    env: Mapping[str, str],
    redactor: Redactor,
    environment: dict[str, str],
) -> OpenLane:
    """The backend and judges of one model (the agent's own when `ref` is None)."""
    agent = request.agent
    answers = request.answers
    recorded: Cassette | None = None
    connections = None
    try:
        if isinstance(answers, Live):
            if ref is not None:
                providers = load_global_providers(request.agent_path.parent, env=env).providers
                agent = with_model(agent, ref, providers)
            agent, overridden = with_backend_overrides(agent, request.backend_overrides)
            if overridden:
                environment["backend_overrides"] = ", ".join(overridden)
            watched = WatchedBackend(_live_backend(agent, request.agent_path.parent))
            connections = watched.counts
            backend: AgentBackend = (
                RecordingBackend(watched, agent.name, model_label(agent))
                if answers.record
                else watched
            )
        elif isinstance(answers, Replay):
            recorded = load_cassette(answers.path)
            agent = as_recorded(agent, recorded.model)
            backend = ReplayBackend(recorded, agent)
        else:
            recorded = answers.cassette
            agent = as_recorded(agent, recorded.model)
            backend = ReplayBackend(recorded, agent)
    except RunCannotStart:
        raise
    except (OverrideError, CassetteFormatError, BackendInitError, ModelSpecError) as error:
        prefix = f"--model {ref.label}: " if ref is not None and ref.label not in str(error) else ""
        raise RunCannotStart(redactor.text(prefix + str(error))) from None
    except Exception as error:  # a backend constructor bug: still "cannot run", with the cause
        message = f"the backend could not start: {type(error).__name__}: {error}"
        raise RunCannotStart(redactor.text(message)) from None
    judges = JudgePool(
        agent,
        _judge_mode(answers, request.rejudge),
        env=env,
        concurrency=request.judge_concurrency,
        recorded=RecordedJudgements(recorded) if recorded is not None else None,
        mask=redactor.text,
    )
    judges.prepare(_judged_metrics(agent, planned))
    label = ref.label if ref is not None else model_label(agent)
    return OpenLane(Lane(agent, backend, judges, label), judges, label, connections)


def close_quietly(opened: OpenLane) -> None:
    """A lane opened before a later one failed to: its backend must not leak."""
    try:
        asyncio.run(opened.aclose())
    except Exception:
        _log.warning("closing the backend of %s failed", opened.label, exc_info=True)


def unreachable_model(lanes: list[OpenLane], redactor: Redactor) -> str | None:
    """A model none of whose sends reached its server: the run did not test it."""
    for opened in lanes:
        counts = opened.connections
        if counts is not None and counts.all_unreachable:
            whose = f"{opened.label}: " if len(lanes) > 1 else ""
            return redactor.text(
                f"{whose}every turn failed to reach the model's server ({counts.unreachable} "
                f"of {counts.sends} sends), so the agent was not tested; first error: "
                f"{counts.first_error}"
            )
    return None


def _judged_metrics(agent: Agent, planned: list[PlannedCase]) -> list[JudgedMetric]:
    found: list[JudgedMetric] = []
    for item in planned:
        for spec in turn_specs(item.case):
            for metric in turn_metrics(agent, item.case, spec.index):
                candidate = judged(metric)
                if candidate is not None:
                    found.append(candidate)
    return found


def _judge_mode(answers: Answers, rejudge: bool) -> JudgeMode:
    if isinstance(answers, Live) or rejudge:
        return JudgeMode.LIVE
    return JudgeMode.REPLAY if isinstance(answers, Replay) else JudgeMode.OFFLINE


def add_judgements(cassette: Cassette, judges: JudgePool) -> None:
    """The live verdicts, next to the turn they graded."""
    for case in cassette.cases:
        for position, turn in enumerate(case.turns):
            turn.judgements = list(judges.made.get((case.index, position), []))


def _live_backend(agent: Agent, agent_dir: Path) -> AgentBackend:
    # Only now: importing the backends package (and an SDK) is what a live run pays for.
    # (It checks first that the model's endpoint answers: runner/backends/preflight.py.)
    from holodeck_lsp.runner.backends.create import create_backend

    backend: AgentBackend = create_backend(agent, agent_dir)
    return backend
