"""The ConvFinQA repository's own release files (its `data.zip`: `train.json`, `dev.json`,
`test.json`, see docs/importing.md): a JSON list of conversations, each with `id`, `pre_text`
and `post_text` (lists of sentences), `table` (a list of rows, the first the header, each
row's first cell its name) and `annotation` (`dialogue_break`: the questions,
`turn_program`: each question's program, `exe_ans_list`: each program's result).

Each release record is read into the record shape the conversion uses (records.py): `doc`
with the texts joined and the table as {column: {row: value}}, cells that are amounts
(`$ 1,234.5`, `( 3.2 )`, `12%`) as numbers; `dialogue` with the questions, the programs and
the results as text; `features` with the number of turns.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

Record = Mapping[str, Any]

#: An amount as the release's table cells write it: `$ 1,234.5`, `( 3.2 )`, `- 4`, `12 %`.
_AMOUNT = re.compile(r"^(?P<open>\()?\s*\$?\s*(?P<sign>-)?\s*(?P<digits>\d[\d,]*(?:\.\d+)?)"
                     r"\s*%?\s*(?P<close>\))?$")  # fmt: skip
_ANNOTATION_LISTS = ("dialogue_break", "turn_program", "exe_ans_list")


def is_release(data: object) -> bool:
    """A release file is a list of records (the reformatted form is an object of splits)."""
    return isinstance(data, list)


def release_problem(record: object) -> str | None:
    """What a release record lacks for the conversion, or None."""
    if not isinstance(record, dict):
        return f"is a {type(record).__name__}, not a JSON object"
    for name in ("pre_text", "post_text"):
        if not isinstance(record.get(name), list | str):
            return f"has no {name!r} (the sentences around the table)"
    table = record.get("table")
    if not isinstance(table, list) or not table or not all(isinstance(r, list) for r in table):
        return 'has no "table" (a list of rows, the first the header)'
    annotation = record.get("annotation")
    if not isinstance(annotation, dict):
        return 'has no "annotation" (the conversation)'
    for name in _ANNOTATION_LISTS:
        if not isinstance(annotation.get(name), list):
            return f"has no annotation.{name} (a list, one entry per turn)"
    return None


def from_release(record: Record) -> dict[str, Any]:
    """The release record in the conversion's shape (release_problem(record) is None)."""
    annotation = record["annotation"]
    questions = [str(question) for question in annotation["dialogue_break"]]
    return {
        "id": record.get("id"),
        "doc": {
            "pre_text": _text(record["pre_text"]),
            "post_text": _text(record["post_text"]),
            "table": table_columns(record["table"]),
        },
        "dialogue": {
            "conv_questions": questions,
            "conv_answers": [answer_text(value) for value in annotation["exe_ans_list"]],
            "turn_program": [str(program) for program in annotation["turn_program"]],
        },
        "features": {"num_dialogue_turns": len(questions)},
    }


def table_columns(rows: list[list[Any]]) -> dict[str, dict[str, object]]:
    """Rows (the header first, each row's first cell its name) as {column: {row: value}}."""
    header, *body = rows
    columns = [str(name).strip() or f"column {number}" for number, name in enumerate(header)]
    table: dict[str, dict[str, object]] = {column: {} for column in columns[1:]}
    for row in body:
        if not row:
            continue
        name = str(row[0]).strip()
        for column, cell in zip(columns[1:], row[1:], strict=False):
            table[column][name] = cell_value(cell)
    return table


def cell_value(cell: object) -> object:
    """An amount as a number (`( 3.2 )` and `-3.2` negative); other text as it is."""
    if not isinstance(cell, str):
        return cell
    match = _AMOUNT.match(cell.strip())
    if match is None or bool(match["open"]) != bool(match["close"]):
        return cell.strip()
    value = float(match["digits"].replace(",", ""))
    return -value if match["open"] or match["sign"] else value


def answer_text(value: object) -> str:
    """A program's result as the conversion reads answers: a number's shortest text."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        return str(value)
    number = float(value)
    # As cases.number_text writes numbers (not imported: cases reads records, which read this).
    return str(int(number)) if number.is_integer() else repr(number)


def _text(value: object) -> str:
    if isinstance(value, list):
        return " ".join(str(sentence).strip() for sentence in value if str(sentence).strip())
    return str(value)
