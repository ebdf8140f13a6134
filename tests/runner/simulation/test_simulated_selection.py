"""`--turn N` on a simulated-user case is refused (runner/selection.py): its conversation is
generated, so there is no fixed turn N to send its context for; the case runs as a whole."""

from __future__ import annotations

import pytest

from holodeck_lsp.runner.selection import Selection, SelectionError, plan_cases
from holodeck_lsp.schema.agent import Agent


def test_a_simulated_case_runs_as_a_whole() -> None:
    agent = Agent.model_validate(
        {
            "name": "shop",
            "model": {"provider": "openai", "name": "gpt-4o-mini"},
            "instructions": {"inline": "Help."},
            "test_cases": [
                {
                    "name": "talk",
                    "turns": [{"input": "Hi"}],
                    "simulated_user": {
                        "instructions": "You are Ana.",
                        "model": {"provider": "openai", "name": "gpt-4.1-mini"},
                    },
                }
            ],
        }
    )
    with pytest.raises(SelectionError, match=r"'talk' has a simulated user.*without --turn"):
        plan_cases(agent, Selection(case="talk", turn=0))
    [planned] = plan_cases(agent, Selection(case="talk"))
    assert planned.graded_turn is None
