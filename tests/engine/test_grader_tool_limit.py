"""A code grader sees whether its turn was stopped at the tool-round limit
(`GraderContext.tool_limit_reached`, from the turn's outcome): BFCL's grader fails such a turn
as "force-terminated" (docs/importing-bfcl.md, "Parity with BFCL")."""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
from holodeck_lsp.engine.case_grading import grade_case
from holodeck_lsp.engine.code_graders import GraderContext
from holodeck_lsp.engine.turn_grading import TurnOutcome

AGENT = """\
name: limits
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "answer"}
evaluations:
  metrics:
    - {type: code, grader: "g:not_stopped"}
test_cases:
  - name: loop
    turns:
      - {input: "one"}
      - {input: "two"}
"""


def test_the_grader_context_carries_the_limit_a_turn_was_stopped_at(tmp_path: Path) -> None:
    (tmp_path / "g.py").write_text("def not_stopped(ctx):\n    return True\n")
    loaded = load_agent_text(
        AGENT, tmp_path / "agent.yaml", LoadOptions(home=tmp_path / "home", env={})
    )
    assert loaded.agent is not None, [d.message for d in loaded.diagnostics]
    seen: list[int | None] = []

    def not_stopped(context: GraderContext) -> bool:
        seen.append(context.tool_limit_reached)
        return context.tool_limit_reached is None

    outcomes = [TurnOutcome(response="a", tool_limit_reached=20), TurnOutcome(response="b")]
    case = loaded.agent.test_cases[0]  # type: ignore[index]
    result = grade_case(loaded.agent, case, 0, outcomes, graders={"g:not_stopped": not_stopped})
    assert seen == [20, None]
    assert [turn.passed for turn in result.turns or []] == [False, True]
