"""`holodeck-lsp import convfinqa` reads the ConvFinQA repository's own release files (its
`data.zip`: `dev.json`, a list of conversations with `pre_text`, `post_text`, `table` and
`annotation`; importers/convfinqa/release.py), through the console script, from a small
committed fixture in that format (tests/importers/convfinqa_release/dev.json, hand-written)."""

from __future__ import annotations

import json
from pathlib import Path

from tests.cli.test_import_command import cli

RELEASE = Path(__file__).parents[1] / "importers" / "convfinqa_release" / "dev.json"


def test_a_release_file_imports_and_checks_clean(tmp_path: Path) -> None:
    out = tmp_path / "suite"
    done = cli("import", "convfinqa", RELEASE, "--out", out, "--n", "5")
    assert done.returncode == 0, done.stderr
    assert f"wrote 1 dialogues (4 turns) to {out / 'agent.yaml'}" in done.stderr, done.stderr
    # The yes/no conversation is passed over, as in the reformatted form.
    assert "passed over Single_ACME/2019/page_40.pdf-2" in done.stderr
    agent = (out / "agent.yaml").read_text("utf-8")
    assert "# convfinqa: Single_ACME/2019/page_12.pdf-1 (dev)" in agent, agent
    for answer in ('"1250"', '"1000"', '"250"', '"0.25"'):
        assert f"ground_truth: {answer}" in agent, agent
    subset = json.loads((out / "data" / "convfinqa_subset.json").read_text("utf-8"))
    (dialogue,) = subset["dialogues"]
    assert subset["split"] == "dev"
    # The table's amounts are numbers, a parenthesised one negative; the texts are joined.
    assert dialogue["doc"]["table"] == {
        "2019": {"net revenue": 1250.0, "operating costs": -300.0},
        "2018": {"net revenue": 1000.0, "operating costs": -250.0},
    }
    assert dialogue["doc"]["pre_text"] == (
        "acme corp. reported the following results . amounts are in millions ."
    )
    checked = cli("check", out)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_a_release_record_missing_its_annotation_is_named(tmp_path: Path) -> None:
    records = json.loads(RELEASE.read_text("utf-8"))
    del records[1]["annotation"]["turn_program"]
    broken = tmp_path / "dev.json"
    broken.write_text(json.dumps(records), "utf-8")
    done = cli("import", "convfinqa", broken, "--out", tmp_path / "suite")
    assert done.returncode == 2, done.stderr
    assert (
        f"{broken}: record 1 ('Single_ACME/2019/page_40.pdf-2') of split 'dev': has no "
        "annotation.turn_program (a list, one entry per turn)"
    ) in done.stderr
