"""`run_session`: the one run path — planning, the backend (live with overrides, replay,
transcript), closing it, and masking secrets in everything that leaves the run."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.runner.backends import create as backends
from holodeck_lsp.runner.cassette import Cassette, CassetteCase, CassetteTurn
from holodeck_lsp.runner.execution.events import CaseRef
from holodeck_lsp.runner.run_session import (
    Live,
    Replay,
    RunCannotStart,
    RunRequest,
    RunSession,
    Transcript,
)
from holodeck_lsp.runner.secrets import MASK
from holodeck_lsp.runner.selection import Selection
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.results import TestResult, TurnResult
from tests.runner.fake_backend import BackendInitError, FakeBackend, Reply, write_agent

KEY = "sk-session-test-5e8a1c"
CASES = '  - name: one\n    input: "tell me"\n'


class Collect:
    def __init__(self) -> None:
        self.turns: list[TurnResult] = []
        self.cases: list[TestResult] = []

    def case_started(self, case: CaseRef) -> None:
        return None

    def turn_finished(self, case: CaseRef, turn: TurnResult) -> None:
        self.turns.append(turn)

    def case_finished(self, case: CaseRef, result: TestResult) -> None:
        self.cases.append(result)


@pytest.fixture
def agent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Agent:
    monkeypatch.setenv("SESSION_TEST_API_KEY", KEY)
    return write_agent(tmp_path, CASES)


def live(monkeypatch: pytest.MonkeyPatch, fake: FakeBackend, seen: list[Agent]) -> None:
    def create(agent: Agent, agent_dir: Path) -> FakeBackend:
        seen.append(agent)
        return fake

    monkeypatch.setattr(backends, "create_backend", create)


async def test_results_given_to_progress_and_returned_are_masked(
    agent: Agent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    fake = FakeBackend(replies={"tell me": Reply(response=f"the key is {KEY}")})
    live(monkeypatch, fake, [])
    session = RunSession.open(RunRequest(agent, tmp_path / "agent.yaml", answers=Live(record=True)))
    progress = Collect()
    outcome = await session.run(progress)
    assert fake.closed
    assert outcome.report.results[0].agent_response == f"the key is {MASK}"
    assert progress.turns[0].response == f"the key is {MASK}"
    assert progress.cases[0].agent_response == f"the key is {MASK}"
    assert outcome.recording is not None
    assert outcome.recording.cases[0].turns[0].response == f"the key is {MASK}"
    assert outcome.report.environment["mode"] == "record"


async def test_backend_overrides_apply_to_live_runs_and_are_reported(
    agent: Agent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    seen: list[Agent] = []
    live(monkeypatch, FakeBackend(), seen)
    request = RunRequest(
        agent, tmp_path / "agent.yaml", backend_overrides={"openai": {"name": "gpt-other"}}
    )
    outcome = await RunSession.open(request).run()
    assert seen[0].model.name == "gpt-other"
    assert outcome.report.environment["backend_overrides"] == "openai.name"
    assert outcome.report.environment["mode"] == "live"


@pytest.mark.parametrize(
    ("error", "expected"),
    [
        (BackendInitError(f"key {KEY} was refused"), f"key {MASK} was refused"),
        (
            RuntimeError(f"bug with {KEY}"),
            f"the backend could not start: RuntimeError: bug with {MASK}",
        ),
    ],
)
def test_a_backend_that_cannot_start_is_refused_with_a_masked_message(
    agent: Agent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, error: Exception, expected: str
) -> None:
    def fail(*_args: Any) -> None:
        raise error

    monkeypatch.setattr(backends, "create_backend", fail)
    with pytest.raises(RunCannotStart) as refused:
        RunSession.open(RunRequest(agent, tmp_path / "agent.yaml"))
    assert str(refused.value) == expected


def test_bad_selections_overrides_and_cassettes_cannot_start(agent: Agent, tmp_path: Path) -> None:
    path = tmp_path / "agent.yaml"
    with pytest.raises(RunCannotStart, match="no-such-case"):
        RunSession.open(RunRequest(agent, path, selection=Selection(case="no-such-case")))
    with pytest.raises(RunCannotStart, match=r"holodeck\.backends\.openai cannot override api_key"):
        RunSession.open(RunRequest(agent, path, backend_overrides={"openai": {"api_key": "x"}}))
    with pytest.raises(RunCannotStart, match="cannot read cassette"):
        RunSession.open(RunRequest(agent, path, answers=Replay(tmp_path / "missing.json")))


async def test_a_transcript_is_re_graded_without_a_backend(
    agent: Agent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(backends, "create_backend", lambda *_a: pytest.fail("no backend"))
    transcript = Cassette(
        agent=agent.name,
        cases=[
            CassetteCase(name=None, index=0, turns=[CassetteTurn(input="tell me", response=KEY)])
        ],
    )
    request = RunRequest(agent, tmp_path / "agent.yaml", answers=Transcript(transcript))
    outcome = await RunSession.open(request).run()
    assert outcome.report.results[0].agent_response == MASK
    assert outcome.report.environment["mode"] == "regrade"


async def test_unsaved_agent_text_is_scanned_for_substituted_secrets(
    agent: Agent, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("SESSION_TEST_WORD", "halibut-3301")
    fake = FakeBackend(replies={"tell me": Reply(response="halibut-3301")})
    live(monkeypatch, fake, [])
    request = RunRequest(
        agent, tmp_path / "agent.yaml", agent_text="instructions: ${SESSION_TEST_WORD}\n"
    )
    outcome = await RunSession.open(request).run()
    assert outcome.report.results[0].agent_response == MASK


@pytest.mark.parametrize(
    ("answers", "models", "repeat", "says"),
    [
        ("replay", ("openai:other",), 1, "--model cannot change its answers"),
        ("replay", (), 2, "--repeat with --replay"),
        ("record", ("openai:a", "openai:b"), 1, "--record with 2 models"),
        ("record", (), 3, "--record with 3 repeats"),
        ("live", (), 0, "--repeat 0: the number of sessions per case must be at least 1"),
    ],
)
def test_a_request_built_by_hand_is_refused_by_the_same_rule_as_the_command_line(
    agent: Agent,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    answers: str,
    models: tuple[str, ...],
    repeat: int,
    says: str,
) -> None:
    """The editor builds its RunRequest itself: a combination the CLI refuses is refused here
    too, before any backend starts, with the CLI's words."""
    from holodeck_lsp.runner.models.model_matrix import parse_models

    monkeypatch.setattr(backends, "create_backend", lambda *_a: pytest.fail("no backend"))
    chosen = {
        "replay": Replay(tmp_path / "c.json"),
        "record": Live(record=True),
        "live": Live(),
    }[answers]
    request = RunRequest(
        agent,
        tmp_path / "agent.yaml",
        answers=chosen,
        models=tuple(parse_models(list(models))),
        repeat=repeat,
    )
    with pytest.raises(RunCannotStart, match=re.escape(says)):
        RunSession.open(request)
