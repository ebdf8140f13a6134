"""`compare` on two runs whose simulated users differ (engine/simulator_drift.py): a warning
per case naming what changed, and `--strict-simulator` refusing (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.commands.compare import main
from holodeck_lsp.engine.simulator_drift import simulator_differences, simulator_outline
from holodeck_lsp.schema.results import ReportSummary, SimulationResult, TestReport, TestResult


def _report(model: str, fingerprint: str) -> dict[str, Any]:
    result = TestResult(
        test_name="balance",
        test_index=0,
        passed=True,
        simulation=SimulationResult(model=model, fingerprint=fingerprint),
    )
    summary = ReportSummary(total_tests=1, passed=1, failed=0, pass_rate=100.0)
    report = TestReport(
        agent_name="shop",
        agent_config_path="agent.yaml",
        results=[result],
        summary=summary,
        timestamp="2026-12-06T09:00:00+00:00",
        holodeck_version="holodeck-lsp test",
    )
    data: dict[str, Any] = report.model_dump(mode="json")
    return data


def test_differences_name_the_case_and_what_changed() -> None:
    base = _report("anthropic:claude-haiku-4-5", "a" * 64)
    assert simulator_differences(base, base) == []
    [line] = simulator_differences(base, _report("openai:gpt-4.1-mini", "a" * 64))
    assert "case 'balance'" in line and "anthropic:claude-haiku-4-5 → openai:gpt-4.1-mini" in line
    [line] = simulator_differences(base, _report("anthropic:claude-haiku-4-5", "b" * 64))
    assert "instructions differ" in line and "aaaaaaaaaaaa → bbbbbbbbbbbb" in line


def test_the_outline_of_a_file_finds_what_its_whole_json_finds() -> None:
    base = _report("anthropic:claude-haiku-4-5", "a" * 64)
    for head in (base, _report("openai:gpt-4.1-mini", "a" * 64), _report("x:y", "b" * 64)):
        whole = simulator_differences(base, head)
        outlines = (simulator_outline(json.dumps(r).encode()) for r in (base, head))
        assert simulator_differences(*outlines) == whole


@pytest.mark.parametrize("raw", [b"{not json", b'{"results": {}}', b'{"results": [3]}', b"[]"])
def test_an_outline_of_something_else_is_refused(raw: bytes) -> None:
    with pytest.raises(ValueError):
        simulator_outline(raw)


def test_compare_warns_then_refuses_with_the_flag(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    base, head = tmp_path / "base.json", tmp_path / "head.json"
    base.write_text(json.dumps(_report("anthropic:claude-haiku-4-5", "a" * 64)), "utf-8")
    head.write_text(json.dumps(_report("anthropic:claude-haiku-4-5", "b" * 64)), "utf-8")
    assert main([str(base), str(head)]) == 0
    assert "did not talk to the same user" in capsys.readouterr().err
    assert main([str(base), str(head), "--strict-simulator"]) == 2
    assert "--strict-simulator: the simulated users differ in 1 case(s)" in capsys.readouterr().err
    assert main([str(base), str(base), "--strict-simulator"]) == 0
