"""`holodeck-lsp run` end to end: replayed runs (no backend, no network), exit codes 0-3,
reports written, progress output, secrets kept out of every output."""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.cli import main
from holodeck_lsp.runner.backends import create as backends
from holodeck_lsp.runner.backends.base import BackendInitError
from tests.runner.fake_backend import FakeBackend, Reply, write_agent

CASES = (
    "  - name: sums\n    turns:\n"
    '      - {input: "q0", ground_truth: "206588"}\n'
    '      - {input: "q1", ground_truth: "181001"}\n'
    '  - input: "single"\n    ground_truth: "yes"\n'
)
EQUALITY = "evaluations:\n  metrics:\n    - type: standard\n      metric: equality\n"


def turn(text: str, response: str | None, error: str | None = None) -> dict[str, Any]:
    return {
        "input": text,
        "response": response,
        "tool_calls": [],
        "token_usage": {"prompt_tokens": 3, "completion_tokens": 1, "total_tokens": 4},
        "error": error,
        "duration_ms": 12,
    }


def cassette(tmp_path: Path, answers: tuple[str, str, str]) -> Path:
    data = {
        "format": "holodeck-cassette",
        "version": 1,
        "agent": "agent",
        "cases": [
            {"name": "sums", "index": 0, "turns": [turn("q0", answers[0]), turn("q1", answers[1])]},
            {"name": None, "index": 1, "turns": [turn("single", answers[2])]},
        ],
    }
    path = tmp_path / "suite.cassette.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    return path


@pytest.fixture
def suite(tmp_path: Path) -> Path:
    write_agent(tmp_path, CASES, EQUALITY)
    return tmp_path


def test_a_passing_replay_exits_0_and_writes_every_report(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tape = cassette(suite, ("206588", "181001", "yes"))
    out = suite / "out"
    status = main(
        ["run", str(suite / "agent.yaml"), "--replay", str(tape),
         "--report-json", str(out / "r.json"), "--report-md", str(out / "r.md"),
         "--junit", str(out / "r.xml"), "--report-html", str(out / "r.html")]
    )  # fmt: skip
    assert status == 0
    report = json.loads((out / "r.json").read_text(encoding="utf-8"))
    assert [r["test_name"] for r in report["results"]] == ["sums", None]
    assert [r["passed"] for r in report["results"]] == [True, True]
    assert len(report["results"][0]["turns"]) == 2 and report["results"][1]["turns"] is None
    assert report["summary"]["total_tests"] == 2 and report["summary"]["total_turns"] == 3
    assert report["environment"]["mode"] == "replay"
    assert (out / "r.md").read_text(encoding="utf-8").startswith("# Test report: agent")
    ET.fromstring((out / "r.xml").read_text(encoding="utf-8"))
    assert 'id="report-data">' in (out / "r.html").read_text(encoding="utf-8")
    printed = capsys.readouterr().out
    assert "[1/2] sums turn 0 ✓ (1/2)" in printed
    assert "2 passed, 0 failed of 2 test cases (3/3 turns)" in printed


def test_the_folder_is_enough_and_quiet_prints_only_the_summary(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tape = cassette(suite, ("206588", "181001", "yes"))
    assert main(["run", str(suite), "--replay", str(tape), "--quiet"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    # The bill, the pass rate with its interval (docs/reports.md, "Statistics"), the tally.
    assert len(lines) == 3 and lines[2].startswith("2 passed, 0 failed")
    assert lines[1] == "pass rate 100.0% [34.2, 100.0] (95% interval, 2 measured case sessions)"
    assert lines[0] == (
        # at the shipped price list (runner/pricing/prices.json)
        "agent tokens: 12 (9 prompt, 3 completion); cost 0.000003 USD (prices as of 2026-12-01)"
    )


def test_a_failing_case_exits_1(suite: Path, capsys: pytest.CaptureFixture[str]) -> None:
    tape = cassette(suite, ("206588", "999", "yes"))
    assert main(["run", str(suite), "--replay", str(tape)]) == 1
    printed = capsys.readouterr().out
    assert "FAILED  sums" in printed
    # the console gives the reports' reason: the metric and the values that differed
    assert 'turn 1: metric \'equality\' failed: score 0 < threshold 1 ("999" ≠ "181001")' in printed


def test_a_stale_cassette_fails_the_case_not_the_run(
    suite: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    tape = cassette(suite, ("206588", "181001", "yes"))
    write_agent(suite, CASES.replace('"q1"', '"q1 changed"'), EQUALITY)
    assert (
        main(["run", str(suite), "--replay", str(tape), "--report-json", str(suite / "r.json")])
        == 1
    )
    assert "cassette is stale: turn 1 input differs" in capsys.readouterr().out


def test_one_case_and_one_turn(suite: Path) -> None:
    tape = cassette(suite, ("206588", "wrong", "yes"))
    report = suite / "r.json"
    common = ["run", str(suite), "--replay", str(tape), "--report-json", str(report)]
    assert main([*common, "--case", "1"]) == 0
    assert [r["test_index"] for r in json.loads(report.read_text())["results"]] == [1]
    assert main([*common, "--case", "sums", "--turn", "0"]) == 0
    (only,) = json.loads(report.read_text())["results"]
    assert [t["turn_index"] for t in only["turns"]] == [0]
    assert main([*common, "--case", "sums", "--turn", "1"]) == 1


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--case", "nope"], "no test case named 'nope'"),
        (["--turn", "1"], "together with a case"),
        (["--record", "a.json", "--replay", "b.json"], "cannot be used together"),
        (["--parallel", "0"], "must be at least 1"),
    ],
)
def test_usage_errors_exit_2(
    suite: Path, args: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(suite), *args]) == 2
    assert message in capsys.readouterr().err


def test_configuration_errors_exit_2_with_check_style_diagnostics(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "agent.yaml"
    path.write_text("name: broken\nmodel:\n  provider: openai\n", encoding="utf-8")
    assert main(["run", str(path)]) == 2
    err = capsys.readouterr().err
    assert f"{path}:" in err or "agent.yaml:" in err
    assert ": error: " in err and "[" in err
    assert main(["run", str(tmp_path / "missing.yaml")]) == 2


def test_no_usable_backend_exits_3(
    suite: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    def no_backend(*_args: object, **_kwargs: object) -> object:
        raise BackendInitError("provider openai needs the `sk` extra: pip install …")

    monkeypatch.setattr(backends, "create_backend", no_backend)
    assert main(["run", str(suite)]) == 3
    assert "needs the `sk` extra" in capsys.readouterr().err


def test_an_unreadable_cassette_or_report_path_exits_3(
    suite: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["run", str(suite), "--replay", str(suite / "absent.json")]) == 3
    tape = cassette(suite, ("206588", "181001", "yes"))
    blocker = suite / "file"
    blocker.write_text("", encoding="utf-8")
    assert main(["run", str(suite), "--replay", str(tape), "--junit", str(blocker / "x")]) == 3
    assert "cannot write" in capsys.readouterr().err


def test_record_then_replay_with_secrets_masked(
    suite: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    secret = "tok_very_secret_value"
    monkeypatch.setenv("SERVICE_TOKEN", secret)
    fake = FakeBackend(
        replies={
            "q0": Reply(response="206588"),
            "q1": Reply(response=f"181001 (via {secret})"),
            "single": Reply(response="yes"),
        }
    )
    monkeypatch.setattr(backends, "create_backend", lambda *_a, **_k: fake)
    tape, report_md = suite / "tape.json", suite / "r.md"
    status = main(
        ["run", str(suite), "--record", str(tape), "--report-md", str(report_md),
         "--report-json", str(suite / "r.json"), "--parallel", "2"]
    )  # fmt: skip
    assert status == 1  # q1's answer is not exactly 181001
    assert fake.closed and all(session.closed for session in fake.sessions)
    printed = capsys.readouterr()
    for text in (
        tape.read_text(),
        report_md.read_text(),
        (suite / "r.json").read_text(),
        printed.out,
        printed.err,
    ):
        assert secret not in text
    assert '"181001 (via ***)"' in tape.read_text()

    monkeypatch.setattr(backends, "create_backend", lambda *_a, **_k: pytest.fail("no backend"))
    assert main(["run", str(suite), "--replay", str(tape), "--quiet"]) == 1
