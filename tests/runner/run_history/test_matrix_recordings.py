"""A stored model-matrix run keeps one recording per model (a cassette answers each case
once), each naming its model; replaying one answers as that model; a cassette holding a case
twice is refused instead of replaying whichever answer came last."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from holodeck_lsp.runner.cassette import load_cassette
from holodeck_lsp.runner.run_history.store import recordings_of
from holodeck_lsp.schema.results import TestReport
from tests.runner.run_history.history_suite import replay, write_suite


def _report_of_a_replay(folder: Path) -> TestReport:
    cassette = write_suite(folder)
    out = folder / "report.json"
    assert replay(folder, cassette, "--no-save", "--report-json", str(out)) == 0
    return TestReport.model_validate_json(out.read_text(encoding="utf-8"))


def test_a_matrix_with_repeats_keeps_each_models_first_repeat(tmp_path: Path) -> None:
    one = _report_of_a_replay(tmp_path)
    models = ["ollama:qwen2.5:7b", "openai:gpt-4o"]
    results = [
        result.model_copy(update={"model": model, "repeat": repeat})
        for model in models
        for repeat in (1, 2)
        for result in one.results
    ]
    matrix = one.model_copy(update={"results": results, "models": models, "repeats": 2})
    files = recordings_of(matrix)
    assert sorted(files) == ["recording.json", "recording.openai_gpt-4o.json"]
    for name, model in zip(["recording.json", "recording.openai_gpt-4o.json"], models, strict=True):
        cassette = files[name]
        assert cassette.model == model
        assert [case.index for case in cassette.cases] == [0, 1]  # each case once


def test_a_replay_answers_as_the_model_its_cassette_names(tmp_path: Path) -> None:
    cassette = write_suite(tmp_path)
    data = json.loads(cassette.read_text(encoding="utf-8"))
    data.update(version=3, model="anthropic:claude-sonnet-4-5")
    cassette.write_text(json.dumps(data), encoding="utf-8")
    out = tmp_path / "report.json"
    assert replay(tmp_path, cassette, "--no-save", "--report-json", str(out)) == 0
    report = TestReport.model_validate_json(out.read_text(encoding="utf-8"))
    assert report.models == ["anthropic:claude-sonnet-4-5"]
    assert {result.model for result in report.results} == {"anthropic:claude-sonnet-4-5"}
    assert load_cassette(cassette).model == "anthropic:claude-sonnet-4-5"


def test_a_cassette_holding_a_case_twice_is_refused(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    cassette = write_suite(tmp_path)
    data = json.loads(cassette.read_text(encoding="utf-8"))
    data["cases"].append(data["cases"][0])
    cassette.write_text(json.dumps(data), encoding="utf-8")
    assert replay(tmp_path, cassette, "--no-save") == 3
    err = capsys.readouterr().err
    assert "records case 'sums' more than once" in err and "recording.<model>.json" in err
