"""Small hand-written ConvFinQA records for the importer's tests (the dataset's shape)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

TABLE: dict[str, dict[str, object]] = {
    "2009": {"net revenue": 120.0, "costs": 80.0},
    "2008": {"net revenue": 100.0, "costs": 70.0},
}

#: (question, answer, program) per turn: a lookup, then a change built on it.
GOOD = [("revenue 2009?", "120", "120"), ("change?", "20", "subtract(120, 100)")]


def record(record_id: str, turns: list[tuple[str, str, str]] = GOOD) -> dict[str, Any]:
    questions, answers, programs = (list(column) for column in zip(*turns, strict=True))
    return {
        "id": record_id,
        "doc": {"pre_text": "Before.", "post_text": "After.", "table": TABLE},
        "dialogue": {
            "conv_questions": questions,
            "conv_answers": answers,
            "turn_program": programs,
        },
        "features": {"num_dialogue_turns": len(questions)},
    }


def write_source(folder: Path, records: list[Any], split: str = "dev") -> Path:
    source = folder / "convfinqa_small.json"
    source.write_text(json.dumps({split: records}), encoding="utf-8")
    return source
