"""One ConvFinQA dialogue as one HoloDeck multi-turn test case.

Per turn: `input` <- `conv_questions[i]`; `ground_truth` <- `conv_answers[i]`;
`turn_config.turn_program` <- `turn_program[i]` (for `graders:turn_program_equivalence`);
`expected_tools` <- the steps of the turn's program that this turn adds. A ConvFinQA program
repeats the steps of the earlier turns it builds on; a repeated step was expected on its own
turn and is not expected again. A number written in the program becomes a `fuzzy` matcher, a
`const_` an exact (literal) value, and `#N` no matcher (the agent's own earlier result, which
it may round; the code grader checks it within tolerance). Operands are pinned in the
program's order. A turn whose program is a bare value found in exactly one table cell
expects a `lookup` of that cell. The first turn carries the page as a text file.
"""

from __future__ import annotations

import re
from typing import Any

from holodeck_lsp.importers.convfinqa.language import (
    Program,
    cells_holding,
    parse_program,
    resolve,
)
from holodeck_lsp.importers.convfinqa.records import Record

DOCUMENTS_FOLDER = "documents"


def case_name(record_id: str) -> str:
    """`Single_MRO/2007/page_134.pdf-1` -> `single-mro-2007-page-134-pdf-1`."""
    return re.sub(r"[^a-z0-9]+", "-", record_id.lower()).strip("-")


def name_pattern(name: str) -> str:
    """A case-insensitive regex that matches a table name however its spaces are written."""
    words = [re.escape(word) for word in name.split()]
    return r"(?i)\s*" + r"\s+".join(words) + r"\s*"


def number_text(value: float) -> str:
    return str(int(value)) if float(value).is_integer() else repr(value)


def _operand_key(value: float) -> float:
    return round(value, 6)


def expected_tools_for(
    record: Record, program: Program, earlier: set[tuple[Any, ...]]
) -> list[Any]:
    """The turn's tool expectations (see the module doc); `earlier` holds the steps earlier
    turns asked for and is extended with this turn's."""
    if not program.steps:
        assert program.bare_value is not None
        cells = cells_holding(record["doc"]["table"], program.bare_value)
        if len(cells) != 1:
            return []  # the value is in the text, or in several cells
        row, column = cells[0]
        return [
            {
                "name": "lookup",
                "args": {
                    "document_id": record["id"],
                    "row": {"regex": name_pattern(row)},
                    "column": {"regex": name_pattern(column)},
                },
            }
        ]
    expected: list[Any] = []
    results = program.values()
    for step in program.steps:
        a, b = (resolve(operand, results) for operand in step.operands)
        key = (step.operation, _operand_key(a), _operand_key(b))
        if key in earlier:
            continue
        earlier.add(key)
        args: dict[str, Any] = {}
        for name, operand, value in zip(("a", "b"), step.operands, (a, b), strict=True):
            if operand.kind == "literal":
                args[name] = {"fuzzy": number_text(value)}
            elif operand.kind == "const":
                args[name] = int(value) if value.is_integer() else value
        expected.append({"name": step.operation, "args": args} if args else step.operation)
    return expected


def document_path(record: Record) -> str:
    """Where the page lives, relative to the agent's folder."""
    return f"data/{DOCUMENTS_FOLDER}/{case_name(record['id'])}.txt"


def to_test_case(record: Record) -> dict[str, Any]:
    dialogue = record["dialogue"]
    turns: list[dict[str, Any]] = []
    earlier: set[tuple[Any, ...]] = set()
    entries = zip(
        dialogue["conv_questions"], dialogue["conv_answers"], dialogue["turn_program"], strict=True
    )
    for index, (question, answer, source) in enumerate(entries):
        turn: dict[str, Any] = {"input": question, "ground_truth": answer}
        if index == 0:
            turn["files"] = [
                {
                    "path": document_path(record),
                    "type": "text",
                    "description": "the annual-report page this conversation is about",
                }
            ]
        tools = expected_tools_for(record, parse_program(source), earlier)
        if tools:
            turn["expected_tools"] = tools
        turn["turn_config"] = {"turn_program": source}
        turns.append(turn)
    return {"name": case_name(record["id"]), "turns": turns}
