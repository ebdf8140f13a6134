"""Which dialogues become test cases: those whose every answer is a number that agrees with
what the dataset's own program computes (a test no correct agent could pass teaches
nothing). The first `n` in file order are taken, or those `--ids` names."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from holodeck_lsp.importers.convfinqa.language import parse_number, parse_program, program_answer
from holodeck_lsp.importers.convfinqa.records import Record

#: The agent-level `numeric` metric's tolerances; selection keeps only dialogues it can grade
#: fairly, and the agent file sets the same numbers.
ABSOLUTE_TOLERANCE = 0.005
RELATIVE_TOLERANCE = 0.001


def _agrees(answer: float, computed: float) -> bool:
    difference = abs(answer - computed)
    return difference <= ABSOLUTE_TOLERANCE or difference <= RELATIVE_TOLERANCE * abs(answer)


def why_unusable(record: Record) -> str | None:
    """Why a dialogue cannot become a fair test case, or None when it can."""
    dialogue = record["dialogue"]
    turns = zip(
        dialogue["conv_questions"], dialogue["conv_answers"], dialogue["turn_program"], strict=True
    )
    for index, (_question, answer, source) in enumerate(turns):
        try:
            expected = parse_number(answer)
        except ValueError:
            return f"turn {index}: the answer {answer!r} is not a number"
        try:
            computed = program_answer(parse_program(source))
        except (ValueError, ZeroDivisionError) as error:
            return f"turn {index}: the program {source!r} cannot be evaluated: {error}"
        if isinstance(computed, str) or not _agrees(expected, computed):
            return (
                f"turn {index}: the dataset's answer {answer!r} disagrees with its program "
                f"{source!r} = {computed!r}"
            )
    return None


@dataclass(frozen=True)
class Selection:
    chosen: list[Record]
    passed_over: list[dict[str, str]]


def select(records: Sequence[Record], count: int | None) -> Selection:
    """The first `count` usable records in file order (None: every usable one); the records
    looked at and refused are kept with their reasons. With `count` None and `records` the
    ones `--ids` named, every named record that is usable."""
    chosen: list[Record] = []
    passed_over: list[dict[str, str]] = []
    for record in records:
        if len(chosen) == count:
            break
        reason = why_unusable(record)
        if reason is None:
            chosen.append(record)
        else:
            passed_over.append({"id": record["id"], "reason": reason})
    return Selection(chosen, passed_over)


#: The kinds of reason `why_unusable` gives, by a phrase of its message.
_REASON_KINDS = (
    ("is not a number", "answer not a number"),
    ("cannot be evaluated", "program cannot be evaluated"),
    ("disagrees with its program", "answer disagrees with its program"),
)


def reason_tally(passed_over: Sequence[Mapping[str, str]]) -> list[tuple[str, int]]:
    """How many dialogues were passed over for each kind of reason, most first."""
    counts: dict[str, int] = {}
    for skipped in passed_over:
        kind = next((k for phrase, k in _REASON_KINDS if phrase in skipped["reason"]), "other")
        counts[kind] = counts.get(kind, 0) + 1
    return sorted(counts.items(), key=lambda item: (-item[1], item[0]))
