"""holodeck_lsp/importers/convfinqa on small records in tmp_path: which dialogues are taken
(--n, --ids), the source-record comment above every case, and bad input as one sentence
naming the file and the record."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.checker.import_source import parse_source_comment
from holodeck_lsp.checker.yaml_document import parse_yaml
from holodeck_lsp.importers.convfinqa.records import BadSource
from holodeck_lsp.importers.convfinqa.suite import IDS_NOTE, SUPPORT_FILES, convert
from tests.importers.convfinqa_records import record, write_source

BAD_ANSWER = [("revenue 2009?", "yes", "120")]


def case_sources(agent_text: str) -> list[tuple[str, str, str]]:
    """(dataset, id, detail) of each case, read from the line above its `- name:`."""
    lines = agent_text.splitlines()
    lines = lines[lines.index("test_cases:") :]
    found = []
    for number, line in enumerate(lines):
        if line.startswith("  - name: "):
            source = parse_source_comment(lines[number - 1])
            assert source is not None, lines[number - 1]
            found.append((source.dataset, source.record_id, source.detail))
    return found


def test_every_case_carries_its_record_and_split_above_it(tmp_path: Path) -> None:
    source = write_source(tmp_path, [record("A/1"), record("B/2")], split="train")
    conversion = convert(source, "train", None)
    assert case_sources(conversion.agent) == [
        ("convfinqa", "A/1", "train"),
        ("convfinqa", "B/2", "train"),
    ]
    assert "(ConvFinQA train split)" in conversion.agent
    document = parse_yaml(conversion.agent)
    assert document.problems == []
    assert [case["name"] for case in document.value["test_cases"]] == ["a-1", "b-2"]


def test_n_takes_the_first_usable_in_file_order(tmp_path: Path) -> None:
    records = [record("A/1", BAD_ANSWER), record("B/1"), record("C/1"), record("D/1")]
    conversion = convert(write_source(tmp_path, records), "dev", 2)
    assert [r["id"] for r in conversion.selection.chosen] == ["B/1", "C/1"]
    assert [p["id"] for p in conversion.selection.passed_over] == ["A/1"]
    subset = json.loads(conversion.subset)
    assert subset["n"] == 2 and "ids" not in subset
    assert sorted(conversion.documents) == ["b-1.txt", "c-1.txt"]
    assert conversion.turns == 4


def test_ids_take_exactly_those_records_in_that_order(tmp_path: Path) -> None:
    records = [record("A/1"), record("B/1", BAD_ANSWER), record("C/1"), record("D/1")]
    conversion = convert(write_source(tmp_path, records), "dev", None, ["D/1", "B/1", "A/1"])
    assert [r["id"] for r in conversion.selection.chosen] == ["D/1", "A/1"]
    assert conversion.selection.passed_over == [
        {"id": "B/1", "reason": "turn 0: the answer 'yes' is not a number"}
    ]
    subset = json.loads(conversion.subset)
    assert (subset["n"], subset["ids"], subset["selection"]) == (3, ["D/1", "B/1", "A/1"], IDS_NOTE)


def test_an_unknown_id_names_the_file_and_the_closest_id(tmp_path: Path) -> None:
    source = write_source(tmp_path, [record("Single_MRO/2007/page_134.pdf-1")])
    with pytest.raises(BadSource) as raised:
        convert(source, "dev", None, ["Single_MRO/2007/page_134.pdf-2"])
    assert str(raised.value) == (
        f"{source}: split 'dev' has no record with id 'Single_MRO/2007/page_134.pdf-2'; "
        "did you mean 'Single_MRO/2007/page_134.pdf-1'?"
    )


def test_truncated_json_names_the_file_and_where_it_ends(tmp_path: Path) -> None:
    source = write_source(tmp_path, [record("A/1")])
    text = source.read_text(encoding="utf-8")
    source.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(BadSource) as raised:
        convert(source, "dev", None)
    message = str(raised.value)
    assert message.startswith(f"{source}: not valid JSON at line 1, column ")
    assert "truncated?" in message and "download the file again" in message


def _without(path: tuple[str, ...]) -> dict[str, Any]:
    broken = record("B/7")
    owner = broken
    for key in path[:-1]:
        owner = owner[key]
    del owner[path[-1]]
    return broken


@pytest.mark.parametrize(
    ("missing", "problem"),
    [
        (("dialogue", "conv_answers"), "has no dialogue.conv_answers (a list of text)"),
        (("doc", "table"), "has no doc.table (mapping)"),
        (("features",), 'has no "features"'),
        (("dialogue",), "has no 'dialogue' object"),
    ],
)
def test_a_record_missing_a_field_is_named_with_its_position(
    tmp_path: Path, missing: tuple[str, ...], problem: str
) -> None:
    source = write_source(tmp_path, [record("A/1"), _without(missing)])
    with pytest.raises(BadSource) as raised:
        convert(source, "dev", None)
    assert str(raised.value) == f"{source}: record 1 ('B/7') of split 'dev': {problem}"


def test_turn_lists_of_different_lengths_are_refused(tmp_path: Path) -> None:
    broken = record("C/3")
    broken["dialogue"]["conv_answers"].pop()
    source = write_source(tmp_path, [broken])
    with pytest.raises(BadSource) as raised:
        convert(source, "dev", None)
    assert str(raised.value).endswith("it has 2 conv_questions, 1 conv_answers, 2 turn_program")


def test_a_missing_split_and_a_non_object_say_what_there_is(tmp_path: Path) -> None:
    source = write_source(tmp_path, [record("A/1")], split="train")
    with pytest.raises(BadSource, match=r"has no 'dev' split; it has: train \(use --split\)"):
        convert(source, "dev", None)
    source.write_text('"text"', encoding="utf-8")
    with pytest.raises(BadSource, match="expected a JSON object of splits"):
        convert(source, "dev", None)
    # A list is a release file (train.json, dev.json): its records are checked as such.
    source.write_text("[1, 2]", encoding="utf-8")
    with pytest.raises(BadSource, match=r"record 0 of split 'dev': is a int, not a JSON object"):
        convert(source, "dev", None)


def test_the_support_files_are_the_samples() -> None:
    """The suite an import writes runs with the very files the sample runs with."""
    sample = Path(__file__).resolve().parents[2] / "sample" / "financial-assistant"
    for name, shipped in SUPPORT_FILES.items():
        assert shipped.read_bytes() == (sample / name).read_bytes(), (
            f"sample/financial-assistant/{name} differs from {shipped.name} the importer ships: "
            "run scripts/regenerate_samples.py"
        )
