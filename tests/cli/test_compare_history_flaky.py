"""A turn that flips in the stored history is flaky (runner/run_history/flaky_history.py):
`compare` of two stored runs lists its regression as flaky and does not fail on it, while a
turn that always passed before still fails the gate. The runs are stored by the project's own
writer (runner/run_history/store.py) beside an agent file in tmp_path; compare runs as the
console script."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from holodeck_lsp.exit_codes import EXIT_OK, EXIT_REGRESSED
from holodeck_lsp.runner.run_history.store import RunToStore, save_run
from holodeck_lsp.runner.secrets import Redactor
from holodeck_lsp.schema.comparison import Comparison
from tests.cli.built_reports import case, cli, report

pytestmark = pytest.mark.slow  # the console script, twice

AGENT = """name: flaky
model:
  provider: openai
  name: gpt-a
instructions:
  inline: x
test_cases:
  - name: case 0
    input: question 0
  - name: case 1
    input: question 1
"""


def _store(agent: Path, number: int, case0: bool, case1: bool) -> str:
    started = datetime(2026, 12, 6, 9, 0, tzinfo=UTC) + timedelta(minutes=number)
    built = report([case(0, [case0]), case(1, [case1])])
    run = RunToStore(agent_path=agent, report=built, started=started, ended=started, mode="replay")
    return save_run(run, Redactor()).id


def test_a_turn_that_flips_in_history_is_flaky(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text(AGENT, encoding="utf-8")
    # case 0: pass, fail, pass, fail (flaky); case 1: pass, pass, pass, fail (a regression).
    ids = [_store(agent, n, c0, c1) for n, (c0, c1) in enumerate(
        [(True, True), (False, True), (True, True), (False, False)]
    )]  # fmt: skip
    done = cli("compare", "--agent", agent, ids[2], ids[3], "--format", "json")
    assert done.returncode == EXIT_REGRESSED, done.stderr  # case 1 regressed for real
    changes = {c.case: c for c in Comparison.model_validate_json(done.stdout).changes}
    assert changes["case 0"].kind == "regression" and changes["case 0"].flaky
    assert changes["case 1"].kind == "regression" and not changes["case 1"].flaky

    # Without case 1's regression nothing fails: the flaky turn alone is not one.
    ids.append(_store(agent, 4, True, True))
    ids.append(_store(agent, 5, False, True))
    done = cli("compare", "--agent", agent, ids[4], ids[5])
    assert done.returncode == EXIT_OK, done.stdout
    assert "(flaky: not counted)" in done.stdout
    # Two report files consult no history: the same drop is a regression there.
    left, right = tmp_path / "l.json", tmp_path / "r.json"
    left.write_text(
        (agent.parent / ".holodeck" / "runs" / ids[4] / "report.json").read_text("utf-8")
    )
    right.write_text(
        (agent.parent / ".holodeck" / "runs" / ids[5] / "report.json").read_text("utf-8")
    )
    assert cli("compare", left, right, cwd=tmp_path).returncode == EXIT_REGRESSED
