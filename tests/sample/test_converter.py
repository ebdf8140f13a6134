"""scripts/convert_convfinqa.py (a wrapper of holodeck_lsp/importers/convfinqa): the committed
subset, pages and agent.yaml are exactly what the converter writes, and its selection and
mapping rules hold on small hand-written dialogues."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.sample.sample_support import (
    AGENT_PATH,
    DOCUMENTS_DIR,
    NO_CONVFINQA,
    SUBSET_PATH,
    committed_subset,
    converter,
    convfinqa_source,
)

# -- the committed outputs -------------------------------------------------------------------

#: What to do when a committed output differs: the sample is generated, never edited by hand.
REGENERATE = "the sample differs from the converter's output: run scripts/regenerate_samples.py"


def convert(source: Path, out_dir: Path, *extra: str) -> int:
    status: int = converter().main(
        ["--source", str(source), "--split", "dev", "--n", "10",
         "--out", str(out_dir / "data" / "convfinqa_subset.json"),
         "--agent-yaml", str(out_dir / "agent.yaml"), *extra]
    )  # fmt: skip
    return status


def assert_same_documents(written: Path) -> None:
    committed = sorted(p.name for p in DOCUMENTS_DIR.iterdir())
    assert sorted(p.name for p in written.iterdir()) == committed
    for name in committed:
        assert (written / name).read_bytes() == (DOCUMENTS_DIR / name).read_bytes(), (
            f"{name}: {REGENERATE}"
        )


def test_the_committed_files_are_the_converters_output(tmp_path: Path) -> None:
    """Regenerating from ConvFinQA gives the committed bytes: nobody edited the generated
    files by hand, and the converter is deterministic."""
    source = convfinqa_source()
    if source is None:
        pytest.skip(NO_CONVFINQA)
    assert convert(source, tmp_path) == 0
    data = tmp_path / "data"
    assert (data / "convfinqa_subset.json").read_bytes() == SUBSET_PATH.read_bytes(), REGENERATE
    assert (tmp_path / "agent.yaml").read_bytes() == AGENT_PATH.read_bytes(), REGENERATE
    assert_same_documents(data / "documents")


def test_the_committed_subset_alone_reproduces_the_agent_and_the_pages(tmp_path: Path) -> None:
    """Without the dataset: the subset keeps every chosen record whole, so feeding its records
    back in must give the same dialogues, pages and agent.yaml (only `source` and
    `passed_over` differ, as the dialogues passed over are not in this source)."""
    subset = committed_subset()
    keys = ("id", "doc", "dialogue", "features")
    records = [{key: dialogue[key] for key in keys} for dialogue in subset["dialogues"]]
    source = tmp_path / "rebuilt.json"
    source.write_text(json.dumps({"dev": records}), encoding="utf-8")

    assert convert(source, tmp_path / "out") == 0

    out = tmp_path / "out"
    assert (out / "agent.yaml").read_bytes() == AGENT_PATH.read_bytes(), REGENERATE
    assert_same_documents(out / "data" / "documents")
    rebuilt = json.loads((out / "data" / "convfinqa_subset.json").read_text(encoding="utf-8"))
    assert rebuilt["dialogues"] == subset["dialogues"]
    assert rebuilt["passed_over"] == []
    assert (rebuilt["split"], rebuilt["n"]) == (subset["split"], subset["n"])


# -- selection -------------------------------------------------------------------------------

TABLE: dict[str, dict[str, object]] = {
    "2009": {"Net  Revenue Total": 120.0, "costs": 80.0, "note": "n/a"},
    "2008": {"Net  Revenue Total": 100.0, "costs": 80.0, "note": "n/a"},
}


def record(
    record_id: str, turns: list[tuple[str, str, str]], table: dict[str, Any] | None = None
) -> dict[str, Any]:
    """A ConvFinQA record; `turns` are (question, answer, program)."""
    questions, answers, programs = (list(column) for column in zip(*turns, strict=True))
    return {
        "id": record_id,
        "doc": {"pre_text": "Before.", "post_text": "After.", "table": table or TABLE},
        "dialogue": {
            "conv_questions": questions,
            "conv_answers": answers,
            "turn_program": programs,
            "executed_answers": answers,
            "qa_split": [False] * len(questions),
        },
        "features": {"num_dialogue_turns": len(questions)},
    }


GOOD = [("revenue 2009?", "120", "120"), ("change?", "20", "subtract(120, 100)")]


def test_an_answer_that_disagrees_with_its_program_is_passed_over_naming_the_turn() -> None:
    bad = record("Bad/1", [GOOD[0], ("change?", "25", "subtract(120, 100)")])
    reason = converter().why_unusable(bad)
    assert reason is not None
    assert reason.startswith("turn 1: ")
    assert "'25'" in reason and "subtract(120, 100)" in reason and "20" in reason
    # Within the numeric metric's tolerance is agreement (the dataset rounds its answers).
    assert converter().why_unusable(record("Ok/1", [("pct?", "16.7%", "divide(20, 120)")])) is None


def test_a_non_numeric_answer_is_passed_over() -> None:
    yes = record("Yes/1", [("greater?", "yes", "greater(120, 100)")])
    assert converter().why_unusable(yes) == "turn 0: the answer 'yes' is not a number"


def test_n_takes_the_first_usable_dialogues_in_file_order(tmp_path: Path) -> None:
    records = [
        record("A/1", [("q", "yes", "greater(1, 0)")]),
        record("B/1", GOOD),
        record("C/1", [("q", "7", "subtract(120, 100)")]),
        record("D/1", GOOD),
        record("E/1", GOOD),
    ]
    selection = converter().select(records, 2)
    assert [r["id"] for r in selection.chosen] == ["B/1", "D/1"]
    assert [p["id"] for p in selection.passed_over] == ["A/1", "C/1"]  # E/1 is never looked at

    source = tmp_path / "small.json"
    source.write_text(json.dumps({"dev": records}), encoding="utf-8")
    out = tmp_path / "data" / "subset.json"
    assert converter().main(["--source", str(source), "--n", "2", "--out", str(out)]) == 0
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [d["id"] for d in written["dialogues"]] == ["B/1", "D/1"]
    assert [d["test_case"]["name"] for d in written["dialogues"]] == ["b-1", "d-1"]
    assert sorted(p.name for p in (out.parent / "documents").iterdir()) == ["b-1.txt", "d-1.txt"]
    assert not (tmp_path / "agent.yaml").exists()  # only with --agent-yaml


# -- the mapping of a turn -------------------------------------------------------------------


def expected(program: str, earlier: set[tuple[Any, ...]] | None = None) -> list[Any]:
    parsed = converter().parse_program(program)
    tools: list[Any] = converter().expected_tools_for(
        record("T/1", [GOOD[0]]), parsed, set() if earlier is None else earlier
    )
    return tools


def test_written_numbers_are_fuzzy_constants_literal_and_references_unpinned() -> None:
    assert expected("subtract(120, 100)") == [
        {"name": "subtract", "args": {"a": {"fuzzy": "120"}, "b": {"fuzzy": "100"}}}
    ]
    assert expected("divide(20, 0.5), multiply(#0, const_100)") == [
        {"name": "divide", "args": {"a": {"fuzzy": "20"}, "b": {"fuzzy": "0.5"}}},
        {"name": "multiply", "args": {"b": 100}},
    ]
    assert expected("subtract(5, 7), multiply(#0, const_m1)")[1] == {
        "name": "multiply",
        "args": {"b": -1},
    }


def test_a_step_with_only_references_is_expected_by_name() -> None:
    assert expected("subtract(120, 100), subtract(80, 60), divide(#0, #1)") == [
        {"name": "subtract", "args": {"a": {"fuzzy": "120"}, "b": {"fuzzy": "100"}}},
        {"name": "subtract", "args": {"a": {"fuzzy": "80"}, "b": {"fuzzy": "60"}}},
        "divide",
    ]


def test_a_step_an_earlier_turn_asked_for_is_not_expected_again() -> None:
    earlier: set[tuple[Any, ...]] = set()
    assert len(expected("subtract(120, 100)", earlier)) == 1
    assert expected("subtract(120, 100), divide(#0, 100)", earlier) == [
        {"name": "divide", "args": {"b": {"fuzzy": "100"}}}
    ]
    assert expected("subtract(120, 100), divide(#0, 100)", earlier) == []


def test_a_bare_value_in_one_cell_is_a_lookup_of_that_cell() -> None:
    [lookup] = expected("120")
    assert lookup["name"] == "lookup"
    args = lookup["args"]
    assert args["document_id"] == "T/1"
    row, column = args["row"]["regex"], args["column"]["regex"]
    for written in ("Net  Revenue Total", "net revenue total", " NET REVENUE   TOTAL "):
        assert re.fullmatch(row, written), written
    assert not re.fullmatch(row, "net revenue")
    assert not re.fullmatch(row, "net revenue total 2009")
    assert re.fullmatch(column, "2009") and re.fullmatch(column, " 2009 ")
    assert not re.fullmatch(column, "2008")


def test_a_bare_value_in_two_cells_or_none_expects_nothing() -> None:
    assert expected("80") == []  # costs in both years: which one is ambiguous
    assert expected("55") == []  # only in the text


def test_a_test_case_passes_the_program_on_and_attaches_the_page_once() -> None:
    dialogue = record(
        "Single_X/2009/page_1.pdf-2",
        [*GOOD, ("percent?", "20%", "subtract(120, 100), divide(#0, 100)")],
    )
    case = converter().to_test_case(dialogue)
    assert case["name"] == "single-x-2009-page-1-pdf-2"
    turns = case["turns"]
    assert [t["input"] for t in turns] == ["revenue 2009?", "change?", "percent?"]
    assert [t["ground_truth"] for t in turns] == ["120", "20", "20%"]
    assert [t["turn_config"] for t in turns] == [
        {"turn_program": "120"},
        {"turn_program": "subtract(120, 100)"},
        {"turn_program": "subtract(120, 100), divide(#0, 100)"},
    ]
    assert turns[0]["files"] == [
        {
            "path": "data/documents/single-x-2009-page-1-pdf-2.txt",
            "type": "text",
            "description": "the annual-report page this conversation is about",
        }
    ]
    assert ["files" in t for t in turns] == [True, False, False]
    assert turns[2]["expected_tools"] == [{"name": "divide", "args": {"b": {"fuzzy": "100"}}}]


def test_a_turn_without_expectations_has_no_expected_tools_key() -> None:
    case = converter().to_test_case(record("T/2", [("costs?", "80", "80")]))
    assert "expected_tools" not in case["turns"][0]


# -- errors ----------------------------------------------------------------------------------


def test_a_missing_split_names_the_splits_there_are(tmp_path: Path) -> None:
    source = tmp_path / "other.json"
    source.write_text(json.dumps({"train": [], "test": []}), encoding="utf-8")
    with pytest.raises(SystemExit) as raised:
        converter().main(["--source", str(source), "--out", str(tmp_path / "o.json")])
    assert str(raised.value.code) == (
        f"error: {source} has no 'dev' split; it has: train, test (use --split)"
    )
    assert not (tmp_path / "o.json").exists()


def test_a_missing_source_is_a_clear_message(tmp_path: Path) -> None:
    missing = tmp_path / "nowhere.json"
    with pytest.raises(SystemExit) as raised:
        converter().main(["--source", str(missing), "--out", str(tmp_path / "o.json")])
    message = str(raised.value.code)
    assert message.startswith(f"error: {missing}: no such file")
    assert "ConvFinQA JSON file" in message


# -- the whole split (--n all) ---------------------------------------------------------------


def test_n_all_takes_every_usable_dialogue_and_tallies_the_rest(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    records = [
        record("A/1", [("q", "yes", "greater(1, 0)")]),
        record("B/1", GOOD),
        record("C/1", [("q", "7", "subtract(120, 100)")]),
        record("D/1", GOOD),
        record("E/1", [("q", "8", "subtract(120, 100)")]),
    ]
    source = tmp_path / "small.json"
    source.write_text(json.dumps({"dev": records}), encoding="utf-8")
    out = tmp_path / "data" / "subset.json"
    assert converter().main(["--source", str(source), "--n", "all", "--out", str(out)]) == 0
    written = json.loads(out.read_text(encoding="utf-8"))
    assert [d["id"] for d in written["dialogues"]] == ["B/1", "D/1"]
    assert written["n"] == "all"
    assert [p["id"] for p in written["passed_over"]] == ["A/1", "C/1", "E/1"]
    err = capsys.readouterr().err
    assert "warning" not in err  # `all` is never "too few"
    assert err.splitlines()[-1] == (
        "passed over 3: 2 answer disagrees with its program, 1 answer not a number"
    )


@pytest.mark.parametrize("value", ["0", "-3", "some"])
def test_n_is_a_positive_number_or_all(value: str, tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as raised:
        converter().main(["--n", value, "--out", str(tmp_path / "o.json")])
    assert raised.value.code == 2


@pytest.mark.slow
def test_n_all_converts_the_whole_dev_split_deterministically(tmp_path: Path) -> None:
    """371 of the 421 dev dialogues qualify (see the sample README); two conversions give the
    same bytes, and every record is either chosen or passed over with a reason."""
    source = convfinqa_source()
    if source is None:
        pytest.skip(NO_CONVFINQA)
    outputs = []
    for name in ("one", "two"):
        out = tmp_path / name
        args = ["--source", str(source), "--n", "all",
                "--out", str(out / "data" / "convfinqa_subset.json"),
                "--agent-yaml", str(out / "agent.yaml")]  # fmt: skip
        assert converter().main(args) == 0
        outputs.append(out)
    one, two = outputs
    for relative in ("agent.yaml", "data/convfinqa_subset.json"):
        assert (one / relative).read_bytes() == (two / relative).read_bytes(), relative
    assert sorted(p.name for p in (one / "data" / "documents").iterdir()) == sorted(
        p.name for p in (two / "data" / "documents").iterdir()
    )
    subset = json.loads((one / "data" / "convfinqa_subset.json").read_text(encoding="utf-8"))
    records = json.loads(source.read_text(encoding="utf-8"))["dev"]
    chosen = [d["id"] for d in subset["dialogues"]]
    assert chosen == [r["id"] for r in records if converter().why_unusable(r) is None]
    assert len(chosen) == 371 and len(subset["passed_over"]) == 50
    assert len(chosen) + len(subset["passed_over"]) == len(records)
    assert all(p["reason"] for p in subset["passed_over"])
    assert len(list((one / "data" / "documents").iterdir())) == 371
    assert (
        (one / "agent.yaml")
        .read_text(encoding="utf-8")
        .startswith("# Financial assistant: 371 ConvFinQA dialogues (1297 turns)")
    )
