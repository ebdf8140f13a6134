"""Reading a ConvFinQA file: one split's records, each checked for the fields the conversion
reads, so bad input is one sentence naming the file and the record — never a KeyError from
deep inside the conversion.

The file is either the ConvFinQA repository's own release file (`train.json`, `dev.json`: a
list of conversations, read by release.py) or the reformatted JSON `{"dev": [record, …], …}`,
whose record is `{"id", "doc": {"pre_text", "post_text", "table"}, "dialogue":
{"conv_questions", "conv_answers", "turn_program"}, "features"}`.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.file_reading import read_file_bytes, read_file_text
from holodeck_lsp.checker.json_reading import loads_json
from holodeck_lsp.importers.convfinqa.release import from_release, is_release, release_problem

Record = Mapping[str, Any]

#: What `doc` must hold: (field, the type it must have, that type's name in messages).
_DOC_FIELDS = (("pre_text", str, "text"), ("post_text", str, "text"), ("table", dict, "mapping"))
_DIALOGUE_FIELDS = ("conv_questions", "conv_answers", "turn_program")


class BadSource(ValueError):
    """The source cannot be converted; the message names the file, the record and the fix."""


#: A release file's split is its name: `dev.json` holds the dev split.
_RELEASE_SPLITS = ("train", "dev", "test")


def read_split(source: Path, split: str) -> tuple[list[Record], str]:
    """The records of `split` in `source` and the split they are: a release file's own
    (`train.json`: train, whatever `split` says), else `split`. BadSource as load_split."""
    records = load_split(source, split)
    if source.stem in _RELEASE_SPLITS and _is_release_file(source):
        return records, source.stem
    return records, split


def _is_release_file(source: Path) -> bool:
    # Read again through the one reader (regular files only): the file may have changed.
    return read_file_bytes(source).lstrip().startswith(b"[")


def load_split(source: Path, split: str) -> list[Record]:
    """The records of `split` in `source`, each checked (BadSource otherwise)."""
    try:
        text = read_file_text(source, "utf-8")
    except FileNotFoundError:
        raise BadSource(f"{source}: no such file (pass the ConvFinQA JSON file)") from None
    except IsADirectoryError:
        raise BadSource(f"{source}: is a folder (pass the ConvFinQA JSON file in it)") from None
    except (OSError, UnicodeDecodeError) as error:
        raise BadSource(f"{source}: cannot be read: {error}") from None
    try:
        data = loads_json(text)
    except json.JSONDecodeError as error:
        hint = " (the file ends early: truncated?)" if error.pos >= len(text.rstrip()) else ""
        raise BadSource(
            f"{source}: not valid JSON at line {error.lineno}, column {error.colno}: "
            f"{error.msg}{hint}; download the file again"
        ) from None
    if is_release(data):
        return _release_records(source, data, split)
    if not isinstance(data, dict):
        raise BadSource(
            f'{source}: expected a JSON object of splits ({{"dev": [...]}}) or a ConvFinQA '
            f"release file (a list of records: train.json, dev.json), found a "
            f"{type(data).__name__}"
        )
    if split not in data:
        splits = ", ".join(map(str, data)) or "none"
        raise BadSource(f"{source} has no {split!r} split; it has: {splits} (use --split)")
    records = data[split]
    if not isinstance(records, list):
        raise BadSource(f"{source}: split {split!r} is not a list of records")
    for index, record in enumerate(records):
        problem = record_problem(record)
        if problem is not None:
            raise BadSource(f"{source}: {_which(record, index, split)}: {problem}")
    return records


def _release_records(source: Path, data: list[Any], split: str) -> list[Record]:
    """A release file's records (release.py), each checked, in the conversion's shape."""
    records: list[Record] = []
    for index, raw in enumerate(data):
        problem = release_problem(raw)
        converted = from_release(raw) if problem is None else None
        if converted is not None:
            problem = record_problem(converted)
        if problem is not None or converted is None:
            raise BadSource(f"{source}: {_which(raw, index, split)}: {problem}")
        records.append(converted)
    return records


def _which(record: object, index: int, split: str) -> str:
    record_id = record.get("id") if isinstance(record, dict) else None
    named = f" ({record_id!r})" if isinstance(record_id, str) else ""
    return f"record {index}{named} of split {split!r}"


def record_problem(record: object) -> str | None:
    """What is missing or malformed in one record, or None when it can be converted."""
    if not isinstance(record, dict):
        return f"is a {type(record).__name__}, not a JSON object"
    if not isinstance(record.get("id"), str) or not record["id"]:
        return 'has no "id" (text)'
    for field in ("doc", "dialogue"):
        if not isinstance(record.get(field), dict):
            return f"has no {field!r} object"
    if "features" not in record:
        return 'has no "features"'
    for name, kind, kind_name in _DOC_FIELDS:
        if not isinstance(record["doc"].get(name), kind):
            return f"has no doc.{name} ({kind_name})"
    table = record["doc"]["table"]
    if not all(isinstance(rows, dict) for rows in table.values()):
        return "has a doc.table column that is not a mapping of row names to values"
    dialogue = record["dialogue"]
    lengths = []
    for name in _DIALOGUE_FIELDS:
        values = dialogue.get(name)
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            return f"has no dialogue.{name} (a list of text)"
        lengths.append(len(values))
    if len(set(lengths)) != 1 or lengths[0] == 0:
        counts = ", ".join(f"{n} {name}" for n, name in zip(lengths, _DIALOGUE_FIELDS, strict=True))
        return f"its dialogue needs one question, answer and program per turn; it has {counts}"
    return None


def find_ids(
    records: Sequence[Record], wanted: Sequence[str], source: Path, split: str
) -> list[Record]:
    """The records named by `wanted`, in that order; BadSource names an unknown id (with the
    closest known one)."""
    import difflib

    by_id = {record["id"]: record for record in records}
    chosen = []
    for record_id in wanted:
        record = by_id.get(record_id)
        if record is None:
            close = difflib.get_close_matches(record_id, list(by_id), n=1, cutoff=0.6)
            hint = f"; did you mean {close[0]!r}?" if close else ""
            raise BadSource(f"{source}: split {split!r} has no record with id {record_id!r}{hint}")
        chosen.append(record)
    return chosen
