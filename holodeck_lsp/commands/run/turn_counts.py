"""How many turns the console's first line announces: a scripted case's turns are known, a
simulated case's are not — its conversation runs until the simulated user stops, at most its
scripted opening turns plus `max_turns` (docs/simulated-users.md "How the conversation runs"),
so a run with one says "up to N turns (simulated users)"."""

from __future__ import annotations

from collections.abc import Iterable

from holodeck_lsp.runner.selection import PlannedCase


def most_turns(case: PlannedCase) -> int:
    """The agent turns this case sends at most (`PlannedCase.most_turns`)."""
    return case.most_turns


def turns_phrase(planned: Iterable[PlannedCase]) -> str:
    """`5 turns`, or `up to 11 turns (simulated users)` when a case has a simulated user."""
    cases = list(planned)
    turns = sum(most_turns(case) for case in cases)
    counted = f"{turns} turn{'s' if turns != 1 else ''}"
    if any(c.simulated for c in cases):
        return f"up to {counted} (simulated users)"
    return counted
