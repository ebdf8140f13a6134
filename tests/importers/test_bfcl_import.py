"""`import bfcl` on real BFCL records (the committed fixture, as a folder, a wheel-shaped zip
and a single file): the written suite checks clean, carries each record as a case with its
source comment, turn inputs, literal expected tools with counts, and the bad inputs get one
line naming the file and record."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
import yaml

from holodeck_lsp.cli import main
from holodeck_lsp.exit_codes import EXIT_BAD_INPUT, EXIT_OK
from holodeck_lsp.importers.bfcl.errors import ImportInputError
from holodeck_lsp.importers.bfcl.importer import Selection, import_bfcl
from holodeck_lsp.importers.bfcl.records import BfclRecord
from holodeck_lsp.importers.bfcl.suite import MISSING_FUNCTION_TURN, expected_tools
from holodeck_lsp.importers.bfcl.tool_docs import ToolDoc
from tests.importers.bfcl_support import (
    FIXTURE,
    FIXTURE_DATA,
    REAL_WHEEL,
    fixture_wheel,
    load_file,
    run_import,
    suite_imports_isolated,
)

ALL = "base,miss_func,miss_param,long_context"


def _records(category: str) -> list[dict[str, object]]:
    path = FIXTURE_DATA / f"BFCL_v4_multi_turn_{category}.json"
    return [json.loads(line) for line in path.read_text().splitlines()]


def _agents(folder: Path) -> dict[str, dict[str, object]]:
    return {
        p.name: yaml.safe_load(p.read_text())
        for p in sorted(folder.glob("*.yaml"))
        if p.name.endswith("agent.yaml")
    }


def test_every_record_becomes_a_case_with_its_turns_and_source_comment(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    assert run_import(str(FIXTURE), "-o", str(out), "--categories", ALL) == EXIT_OK
    cases = {c["name"]: c for a in _agents(out).values() for c in a["test_cases"]}  # type: ignore[attr-defined]
    expected = {str(r["id"]): r for cat in ALL.split(",") for r in _records(cat)}
    assert set(cases) == set(expected)
    for record_id, record in expected.items():
        questions = record["question"]
        assert isinstance(questions, list)
        assert len(cases[record_id]["turns"]) == len(questions)
        first = " ".join(m["content"] for m in questions[0])
        assert cases[record_id]["turns"][0]["input"].split() == first.split()
    texts = "\n".join(p.read_text() for p in out.glob("*agent.yaml"))
    assert '  # bfcl: multi_turn_base_0 (base)\n  - name: "multi_turn_base_0"' in texts
    assert "  # bfcl: multi_turn_miss_func_0 (miss_func)\n" in texts
    # the suite carries BFCL's classes with their licence, and its data in BFCL's layout
    assert (out / "bfcl_classes" / "LICENSE").is_file()
    assert "Apache" in (out / "bfcl_classes" / "NOTICE").read_text()
    assert (out / "data" / "possible_answer" / "BFCL_v4_multi_turn_base.json").is_file()


def test_the_imported_suite_checks_clean(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "suite"
    assert run_import(str(FIXTURE), "-o", str(out), "--categories", ALL) == EXIT_OK
    capsys.readouterr()
    assert main(["check", str(out)]) == EXIT_OK
    assert "0 errors, 0 warnings" in capsys.readouterr().out


def test_expected_tools_are_literal_with_positional_args_named_and_repeats_counted() -> None:
    doc = ToolDoc("sort", "GorillaFileSystem", "sort", {"file_name": {"type": "string"}}, ())
    cd = ToolDoc("cd", "GorillaFileSystem", "cd", {"folder": {"type": "string"}}, ())
    suite = import_bfcl(FIXTURE, Selection(ids=frozenset({"multi_turn_base_0"})))
    record = suite.records[0]
    from dataclasses import replace

    from holodeck_lsp.importers.bfcl.calls import parse_call

    twice: BfclRecord = replace(
        record,
        calls=[[parse_call("cd(folder='a')"), parse_call("cd('a')"), parse_call("sort('x')")]],
    )
    lines = expected_tools(twice, 0, {"sort": doc, "cd": cd})
    assert lines == [
        "          - name: cd",
        "            args:",
        '              folder: "a"',
        "            count: 2",
        "          - name: sort",
        "            args:",
        '              file_name: "x"',
    ]


def test_a_zip_and_a_single_file_give_the_same_suite_as_the_folder(tmp_path: Path) -> None:
    from_folder = import_bfcl(FIXTURE, Selection())
    from_zip = import_bfcl(fixture_wheel(tmp_path), Selection())
    single = FIXTURE_DATA / "BFCL_v4_multi_turn_base.json"
    from_file = import_bfcl(single, Selection())
    assert from_zip.files == from_folder.files == from_file.files


def test_a_dollar_brace_in_bfcl_text_is_not_an_environment_variable(tmp_path: Path) -> None:
    folder = tmp_path / "copy"
    shutil.copytree(FIXTURE, folder)
    questions = folder / "bfcl_eval/data/BFCL_v4_multi_turn_base.json"
    lines = questions.read_text().splitlines()
    first = json.loads(lines[0])
    first["question"][0][0]["content"] = "Post that it costs ${price} now."
    questions.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    suite = import_bfcl(folder, Selection(ids=frozenset({"multi_turn_base_0"})))
    text = suite.files["agent.yaml"]
    assert "${price}" not in text
    case = yaml.safe_load(text)["test_cases"][0]
    assert case["turns"][0]["input"] == "Post that it costs ${price} now."


def test_classes_selects_records_and_fits_one_agent_file(tmp_path: Path) -> None:
    suite = import_bfcl(
        FIXTURE, Selection(classes=frozenset({"GorillaFileSystem", "TwitterAPI", "MathAPI"}))
    )
    assert [r.id for r in suite.records] == [
        "multi_turn_base_0",
        "multi_turn_base_15",
    ]
    assert [n for n in suite.files if n.endswith("agent.yaml")] == ["agent.yaml"]
    many = import_bfcl(FIXTURE, Selection())  # all eight classes: 128 tools
    agent_files = [n for n in many.files if n.endswith("agent.yaml")]
    assert len(agent_files) == 7 and "agent.yaml" not in agent_files
    for name in agent_files:
        assert len(yaml.safe_load(many.files[name])["tools"]) <= 50


# -- the categories -------------------------------------------------------------------------


def _case(category: str, record_id: str) -> dict[str, Any]:
    suite = import_bfcl(FIXTURE, Selection(categories=(category,), ids=frozenset({record_id})))
    [case] = yaml.safe_load(suite.files["agent.yaml"])["test_cases"]
    assert case["name"] == record_id
    turns: list[dict[str, Any]] = case["turns"]
    return {"turns": turns, "text": suite.files["agent.yaml"]}


def test_a_miss_func_turn_without_a_message_is_the_filler_naming_the_withheld_function() -> None:
    # multi_turn_miss_func_0: BFCL withholds `sort` until turn 3, which has no message; at
    # turn 2 the model should say it cannot (no ground-truth calls), at turn 3 sort.
    turns = _case("miss_func", "multi_turn_miss_func_0")["turns"]
    assert turns[3]["input"] == MISSING_FUNCTION_TURN.format(names="sort")
    assert turns[3]["input"] == (
        "(No new request. sort can be used now: carry on with what I asked before.)"
    )
    assert [tool["name"] for tool in turns[3]["expected_tools"]] == ["sort"]
    assert "expected_tools" not in turns[2]
    assert all("No new request" not in turn["input"] for n, turn in enumerate(turns) if n != 3)


def test_the_miss_param_turn_that_should_ask_has_no_expected_tools() -> None:
    # multi_turn_miss_param_0: turn 3 lacks a parameter, so the model should ask for it;
    # BFCL's ground truth there is empty, and so is the turn's assertion.
    case = _case("miss_param", "multi_turn_miss_param_0")
    turns = case["turns"]
    assert [("expected_tools" in turn) for turn in turns] == [True, True, True, False, True]
    assert turns[3]["input"].strip()  # a real request, not a filler
    assert "# no ground-truth calls on this turn (BFCL checks nothing)" in case["text"]


def test_long_context_records_load_their_instances_with_long_context(tmp_path: Path) -> None:
    """The tool path's instances (bfcl_state.new_instances, what tools.py calls) of a
    long_context record are loaded with long_context=True, as BFCL does; a base record's
    are not — and the file system's listing shows BFCL's long-context filler files."""
    out = tmp_path / "suite"
    categories = "base,long_context"
    assert run_import(str(FIXTURE), "-o", str(out), "--categories", categories) == EXIT_OK
    with suite_imports_isolated():
        state = load_file(out / "bfcl_state.py", "bfcl_state_long_context_test")
        entry = state.record("multi_turn_long_context_1")
        assert entry["category"] == "long_context"
        long_fs = state.new_instances(entry)["GorillaFileSystem"]
        assert long_fs.long_context is True
        as_base = state.new_instances({**entry, "category": "base"})["GorillaFileSystem"]
        assert as_base.long_context is False
        base = state.new_instances(state.record("multi_turn_base_0"))["GorillaFileSystem"]
        assert base.long_context is False
        # The same initial_config, listed recursively: the long-context load adds files.
        listed = state.execute({"fs": long_fs}, "find", (), {"path": "."})
        plain = state.execute({"fs": as_base}, "find", (), {"path": "."})
        assert len(listed) > len(plain)


# -- bad input ------------------------------------------------------------------------------


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "copy"
    shutil.copytree(FIXTURE, folder)
    return folder


def _error(path: Path, capsys: pytest.CaptureFixture[str], *extra: str) -> str:
    assert run_import(str(path), "-o", str(path.parent / "out"), *extra) == EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.startswith("holodeck-lsp: error: ") and "Traceback" not in err
    assert err.count("\n") == 1
    return err


def test_a_wheel_without_the_data(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    wheel = fixture_wheel(tmp_path, drop="multi_turn_base")
    err = _error(wheel, capsys)
    assert str(wheel) in err and "multi-turn data of base" in err
    assert "pip download --no-deps bfcl-eval" in err


def test_a_truncated_json_line(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy(tmp_path)
    questions = folder / "bfcl_eval/data/BFCL_v4_multi_turn_base.json"
    lines = questions.read_text().splitlines()
    questions.write_text("\n".join([*lines[:2], lines[2][: len(lines[2]) // 2]]) + "\n")
    err = _error(folder, capsys)
    assert "BFCL_v4_multi_turn_base.json: line 3: not valid JSON" in err
    assert "truncated" in err


def test_a_ground_truth_call_that_does_not_parse(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(tmp_path)
    answers = folder / "bfcl_eval/data/possible_answer/BFCL_v4_multi_turn_base.json"
    text = answers.read_text().replace("sort('final_report.pdf')", "sort('final_report.pdf'", 1)
    answers.write_text(text)
    err = _error(folder, capsys)
    assert "possible_answer/BFCL_v4_multi_turn_base.json: line 1 (record multi_turn_base_0)" in err
    assert "turn 2: ground-truth call \"sort('final_report.pdf'\" does not parse" in err


def test_an_unknown_class(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy(tmp_path)
    questions = folder / "bfcl_eval/data/BFCL_v4_multi_turn_base.json"
    lines = questions.read_text().splitlines()
    first = json.loads(lines[0])
    first["involved_classes"] = ["TwitterAPIv2", "GorillaFileSystem"]
    questions.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    err = _error(folder, capsys)
    assert "BFCL_v4_multi_turn_base.json: line 1 (record multi_turn_base_0)" in err
    assert "unknown class 'TwitterAPIv2'" in err and "GorillaFileSystem" in err


def test_an_existing_suite_is_not_replaced_without_force(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "out"
    assert run_import(str(FIXTURE), "-o", str(out)) == EXIT_OK
    assert run_import(str(FIXTURE), "-o", str(out)) == EXIT_BAD_INPUT
    assert "pass --force" in capsys.readouterr().err
    assert run_import(str(FIXTURE), "-o", str(out), "--force") == EXIT_OK


def test_unknown_categories_and_ids_are_named() -> None:
    with pytest.raises(ImportInputError, match="unknown category basic"):
        import_bfcl(FIXTURE, Selection(categories=("basic",)))
    with pytest.raises(ImportInputError, match="no record multi_turn_base_999"):
        import_bfcl(FIXTURE, Selection(ids=frozenset({"multi_turn_base_999"})))


# -- through the command line, in its own process ------------------------------------------


def test_the_console_script_imports_bfcl(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    done = subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", "import", "bfcl", str(FIXTURE), "--out", str(out)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == EXIT_OK, done.stderr
    assert (out / "agent.yaml").is_file() or list(out.glob("*.agent.yaml"))


# -- the real wheel, where present --------------------------------------------------------


@pytest.mark.skipif(
    not REAL_WHEEL.is_file(), reason="set HOLODECK_BFCL_WHEEL to the bfcl-eval wheel to test it"
)
def test_the_real_wheel_imports_all_800_records_cleanly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    suite = import_bfcl(REAL_WHEEL, Selection(categories=tuple(ALL.split(","))))
    assert len(suite.records) == 800
    for name, text in suite.files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    assert main(["check", str(tmp_path)]) == EXIT_OK
    assert "0 errors, 0 warnings in 20 files" in capsys.readouterr().out
