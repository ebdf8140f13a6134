"""Which part of a suite a run covers: every case, some cases, or one turn of one case.

Cases and turns are numbered from 0, as in reports (`test_cases[0]`, `turn 0`). A case is
chosen by name first; a selector that names no case but is a number is taken as a position.
Selectors with `*`, `?` or `[` are shell-style globs over the names (`--case 'rev*'`); `-k`
is an expression over names (see keyword_expression). Chosen cases run in file order.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass

from holodeck_lsp.runner.keyword_expression import KeywordError, compile_keyword
from holodeck_lsp.runner.shards import Shard, case_key
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
    #: More selectors (`--case` given several times): names, positions or globs; the union.
    cases: tuple[str, ...] = ()
    #: `-k EXPR` over case names; combined with the selectors above, both must match.
    keyword: str | None = None
    #: `--shard K/N`: of the cases chosen above, those whose key hashes to shard K
    #: (runner/shards.py).
    shard: Shard | None = None

    @property
    def narrows(self) -> bool:
        return (
            self.case is not None
            or bool(self.cases)
            or self.keyword is not None
            or self.shard is not None
        )


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

    @property
    def simulated(self) -> bool:
        """A simulated user writes the turns after the scripted ones: their number is known
        only when it stops (docs/simulated-users.md "How the conversation runs")."""
        return self.graded_turn is None and self.case.simulated_user is not None

    @property
    def most_turns(self) -> int:
        """The turns graded and reported at most: a simulated case's scripted opening turns
        plus its `max_turns`, the graded one of a single-turn run, else every turn."""
        simulated = self.case.simulated_user
        if self.graded_turn is None and simulated is not None:
            return len(self.case.turns or []) + simulated.max_turns
        return 1 if self.graded_turn is not None else self.turn_count


def plan_cases(agent: Agent, selection: Selection | None = None) -> list[PlannedCase]:
    """The cases to run, in file order. Raises SelectionError for an unknown case or turn."""
    selection = selection or Selection()
    cases = agent.test_cases or []
    if not selection.narrows:
        if selection.turn is not None:
            raise SelectionError("a turn can only be chosen together with a case (--case)")
        return [PlannedCase(index, case) for index, case in enumerate(cases)]
    chosen = _chosen(cases, selection)
    turn = selection.turn
    if turn is None:
        return [PlannedCase(index, cases[index]) for index in chosen]
    if len(chosen) != 1:
        raise SelectionError(
            f"--turn needs exactly one case, but the selection chose {len(chosen)}"
        )
    index = chosen[0]
    case = cases[index]
    if case.simulated_user is not None:
        label = case.name or f"test_cases[{index}]"
        raise SelectionError(
            f"case {label!r} has a simulated user: its conversation runs as a whole "
            "(docs/simulated-users.md); run the case without --turn"
        )
    count = len(case.turns) if case.turns is not None else 1
    if not 0 <= turn < count:
        label = case.name or f"test_cases[{index}]"
        raise SelectionError(
            f"case {label!r} has {count} turn{'s' if count != 1 else ''} "
            f"(0..{count - 1}); there is no turn {turn}"
        )
    # A single-turn case has one turn: selecting it is selecting the case.
    return [PlannedCase(index, case, turn if case.turns is not None else None)]


def _chosen(cases: list[TestCase], selection: Selection) -> list[int]:
    selectors: list[str | int] = [] if selection.case is None else [selection.case]
    selectors += selection.cases
    if selectors:
        chosen: set[int] = set()
        for selector in selectors:
            chosen.update(_select(cases, selector))
    else:
        chosen = set(range(len(cases)))
    if selection.keyword is not None:
        try:
            matches = compile_keyword(selection.keyword)
        except KeywordError as error:
            raise SelectionError(str(error)) from None
        chosen = {index for index in chosen if matches(_label(cases, index))}
        if not chosen:
            raise SelectionError(
                f"-k {selection.keyword!r} matches no case (names: {_names(cases)})"
            )
    shard = selection.shard
    if shard is not None:
        chosen = {i for i in chosen if shard.holds(case_key(cases[i].name, i))}
    return sorted(chosen)


def _select(cases: list[TestCase], selector: str | int) -> list[int]:
    if isinstance(selector, str) and any(mark in selector for mark in "*?["):
        found = [
            index
            for index in range(len(cases))
            if fnmatch.fnmatchcase(_label(cases, index), selector)
        ]
        if not found:
            raise SelectionError(f"--case {selector!r} matches no case (names: {_names(cases)})")
        return found
    return [_find_case(cases, selector)]


def _label(cases: list[TestCase], index: int) -> str:
    return cases[index].name or f"test_cases[{index}]"


def _names(cases: list[TestCase]) -> str:
    names = [case.name for case in cases if case.name]
    known = ", ".join(repr(name) for name in names[:10]) or "none of the cases has a name"
    more = f" and {len(names) - 10} more" if len(names) > 10 else ""
    return known + more


def _find_case(cases: list[TestCase], wanted: str | int) -> int:
    if isinstance(wanted, str):
        for index, case in enumerate(cases):
            if case.name == wanted:
                return index
        if not wanted.strip().isdigit():
            raise SelectionError(f"no test case named {wanted!r} (names: {_names(cases)})")
        wanted = int(wanted)
    if not 0 <= wanted < len(cases):
        raise SelectionError(
            f"no test case at position {wanted}: the suite has {len(cases)} "
            f"case{'s' if len(cases) != 1 else ''} (0..{len(cases) - 1})"
        )
    return wanted
