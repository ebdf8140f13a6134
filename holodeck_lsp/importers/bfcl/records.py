"""BFCL multi-turn records (one JSON object a line) joined with their ground truth, checked:
a truncated line, a missing field, a ground-truth call that does not parse or a class BFCL's
multi-turn categories do not have is an ImportInputError naming the file, line and record."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from holodeck_lsp.checker.json_reading import loads_json
from holodeck_lsp.importers.bfcl.calls import Call, parse_call
from holodeck_lsp.importers.bfcl.errors import ImportInputError
from holodeck_lsp.importers.bfcl.source import SourceFile

#: The stateful classes of the multi-turn categories -> their multi_turn_func_doc file and the
#: module of the copied source (suite_files/bfcl_classes/).
CLASSES: dict[str, tuple[str, str]] = {
    "GorillaFileSystem": ("gorilla_file_system.json", "gorilla_file_system"),
    "MathAPI": ("math_api.json", "math_api"),
    "MessageAPI": ("message_api.json", "message_api"),
    "TwitterAPI": ("posting_api.json", "posting_api"),
    "TicketAPI": ("ticket_api.json", "ticket_api"),
    "TradingBot": ("trading_bot.json", "trading_bot"),
    "TravelAPI": ("travel_booking.json", "travel_booking"),
    "VehicleControlAPI": ("vehicle_control.json", "vehicle_control"),
}


@dataclass(frozen=True, slots=True)
class BfclRecord:
    id: str
    category: str
    #: Per turn: the user messages' text (empty: a turn where BFCL only adds a function).
    turns: list[list[str]]
    #: Per turn: the ground-truth calls as BFCL writes them, and parsed.
    ground_truth: list[list[str]]
    calls: list[list[Call]]
    initial_config: dict[str, Any]
    involved_classes: list[str]
    #: miss_func: turn index -> the functions BFCL withholds until that turn.
    missed_function: dict[int, list[str]]
    excluded_function: list[str]
    raw: dict[str, Any]
    #: Where its ground truth is (`file: line N`), for messages about it.
    answer_where: str = ""


def _lines(file: SourceFile) -> Iterator[tuple[int, dict[str, Any]]]:
    for number, line in enumerate(file.text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            value = loads_json(line)
        except json.JSONDecodeError as error:
            raise ImportInputError(
                f"{file.label}: line {number}: not valid JSON ({error.msg} at column "
                f"{error.colno}); the file looks truncated or edited: get it again "
                "(pip download --no-deps bfcl-eval)"
            ) from None
        if not isinstance(value, dict) or not isinstance(value.get("id"), str):
            raise ImportInputError(f"{file.label}: line {number}: not a record with an id")
        yield number, value


def read_records(category: str, questions: SourceFile, answers: SourceFile) -> list[BfclRecord]:
    truth = {value["id"]: (number, value) for number, value in _lines(answers)}
    records: list[BfclRecord] = []
    for number, raw in _lines(questions):
        where = f"{questions.label}: line {number} (record {raw['id']})"
        if raw["id"] not in truth:
            raise ImportInputError(f"{where}: has no ground truth in {answers.label}")
        answer_line, answer = truth[raw["id"]]
        records.append(
            _record(category, raw, answer, where, f"{answers.label}: line {answer_line}")
        )
    return records


def _record(
    category: str, raw: dict[str, Any], answer: dict[str, Any], where: str, answer_where: str
) -> BfclRecord:
    for key, kind in (("question", list), ("initial_config", dict), ("involved_classes", list)):
        if not isinstance(raw.get(key), kind):
            raise ImportInputError(f"{where}: `{key}` is missing or not a {kind.__name__}")
    unknown = [name for name in raw["involved_classes"] if name not in CLASSES]
    if unknown:
        raise ImportInputError(
            f"{where}: unknown class {', '.join(map(repr, unknown))}; the multi-turn classes "
            f"are {', '.join(CLASSES)}"
        )
    ground_truth = answer.get("ground_truth")
    if not isinstance(ground_truth, list) or len(ground_truth) != len(raw["question"]):
        raise ImportInputError(
            f"{answer_where} (record {raw['id']}): `ground_truth` must be a list with one "
            f"entry per turn ({len(raw['question'])} turns)"
        )
    calls: list[list[Call]] = []
    for turn, texts in enumerate(ground_truth):
        parsed: list[Call] = []
        for text in texts:
            try:
                parsed.append(parse_call(str(text)))
            except ValueError as error:
                raise ImportInputError(
                    f"{answer_where} (record {raw['id']}): turn {turn}: ground-truth call "
                    f"{text!r} does not parse: {error}"
                ) from None
        calls.append(parsed)
    turns = [
        [str(message.get("content", "")) for message in turn if isinstance(message, dict)]
        for turn in raw["question"]
    ]
    missed = {int(k): list(v) for k, v in (raw.get("missed_function") or {}).items()}
    return BfclRecord(
        id=raw["id"],
        category=category,
        turns=turns,
        ground_truth=[[str(t) for t in texts] for texts in ground_truth],
        calls=calls,
        initial_config=raw["initial_config"],
        involved_classes=list(raw["involved_classes"]),
        missed_function=missed,
        excluded_function=list(raw.get("excluded_function") or []),
        raw=raw,
        answer_where=answer_where,
    )
