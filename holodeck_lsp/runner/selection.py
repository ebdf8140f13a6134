"""Which part of a suite a run covers: every case, one case, or one turn of one case.

Cases and turns are numbered from 0, as in reports (`test_cases[0]`, `turn 0`). A case is
chosen by name first; a selector that names no case but is a number is taken as a position.
"""

from __future__ import annotations

from dataclasses import dataclass

from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.test_case import TestCase


class SelectionError(ValueError):
    """The selection names no case or turn of the suite; the message says what exists."""


@dataclass(frozen=True, slots=True)
class Selection:
    #: A case name, or a 0-based position in `test_cases`; None runs every case.
    case: str | int | None = None
    #: With `case`: grade and report only this turn (0-based). Turns before it are still sent,
    #: in order and in the same session, so the agent has the conversation's context.
    turn: int | None = None


@dataclass(frozen=True, slots=True)
class PlannedCase:
    """One case a run will execute."""

    index: int
    case: TestCase
    #: The only turn graded and reported; None grades every turn.
    graded_turn: int | None = None

    @property
    def turn_count(self) -> int:
        return len(self.case.turns) if self.case.turns is not None else 1

    @property
    def sent_turns(self) -> int:
        """How many turns are sent: all of them, or up to and including the graded one."""
        return self.turn_count if self.graded_turn is None else self.graded_turn + 1


def plan_cases(agent: Agent, selection: Selection | None = None) -> list[PlannedCase]:
    """The cases to run, in file order. Raises SelectionError for an unknown case or turn."""
    selection = selection or Selection()
    cases = agent.test_cases or []
    if selection.case is None:
        if selection.turn is not None:
            raise SelectionError("a turn can only be chosen together with a case (--case)")
        return [PlannedCase(index, case) for index, case in enumerate(cases)]
    index = _find_case(cases, selection.case)
    case = cases[index]
    turn = selection.turn
    if turn is None:
        return [PlannedCase(index, case)]
    count = len(case.turns) if case.turns is not None else 1
    if not 0 <= turn < count:
        label = case.name or f"test_cases[{index}]"
        raise SelectionError(
            f"case {label!r} has {count} turn{'s' if count != 1 else ''} "
            f"(0..{count - 1}); there is no turn {turn}"
        )
    # A single-turn case has one turn: selecting it is selecting the case.
    return [PlannedCase(index, case, turn if case.turns is not None else None)]


def _find_case(cases: list[TestCase], wanted: str | int) -> int:
    if isinstance(wanted, str):
        for index, case in enumerate(cases):
            if case.name == wanted:
                return index
        if not wanted.strip().isdigit():
            names = [case.name for case in cases if case.name]
            known = ", ".join(repr(name) for name in names[:10]) or "none of the cases has a name"
            more = f" and {len(names) - 10} more" if len(names) > 10 else ""
            raise SelectionError(f"no test case named {wanted!r} (names: {known}{more})")
        wanted = int(wanted)
    if not 0 <= wanted < len(cases):
        raise SelectionError(
            f"no test case at position {wanted}: the suite has {len(cases)} "
            f"case{'s' if len(cases) != 1 else ''} (0..{len(cases) - 1})"
        )
    return wanted
