"""sample/bfcl-multi-turn: checks clean, its cassette replays with every turn passing both
views (expected_tools and the bfcl_equivalent metric), and a live run against its oracle —
Semantic Kernel calling the real tools.py on BFCL's classes — gives every case its own
instances: under --parallel 64 and a two-model matrix, each tool result equals the result
of that case's calls replayed alone on fresh instances. The Claude path (provider anthropic,
the Claude Code CLI calling the tools as MCP tools) passes three cases run at once, each on
its own state too."""

from __future__ import annotations

import json
import re
import select
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from holodeck_lsp.cli import main
from holodeck_lsp.exit_codes import EXIT_OK
from tests.importers.bfcl_support import load_file, suite_imports_isolated

SAMPLE = Path(__file__).resolve().parents[2] / "sample" / "bfcl-multi-turn"
CASSETTE = SAMPLE / "cassettes" / "oracle.json"
ORACLE = SAMPLE / "scripts" / "bfcl_oracle_server.py"
LISTENING = re.compile(r"^oracle listening on http://127\.0\.0\.1:(\d+) \((\d+) records\)")


@pytest.fixture(autouse=True)
def isolated() -> Iterator[None]:
    with suite_imports_isolated():
        yield


def _copy(tmp_path: Path) -> Path:
    folder = tmp_path / "bfcl-multi-turn"
    shutil.copytree(SAMPLE, folder, ignore=shutil.ignore_patterns(".holodeck", "__pycache__"))
    return folder


def _report(path: Path) -> dict[str, Any]:
    report: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return report


def _metric(turn: dict[str, Any]) -> dict[str, Any]:
    return next(m for m in turn["metric_results"] if m["metric_name"] == "bfcl_equivalent")


def test_the_sample_checks_clean(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(SAMPLE)]) == EXIT_OK
    assert "0 errors, 0 warnings in 1 file" in capsys.readouterr().out


def test_the_sample_has_20_base_records_and_the_oracles_calls(tmp_path: Path) -> None:
    cassette = json.loads(CASSETTE.read_text(encoding="utf-8"))
    assert cassette  # a recorded run, not an empty file
    data = (SAMPLE / "data" / "BFCL_v4_multi_turn_base.json").read_text().splitlines()
    assert len(data) == 20


def test_the_cassette_replays_with_every_turn_passing_both_views(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(tmp_path)
    out = tmp_path / "report.json"
    status = main(
        ["run", str(folder), "--no-save", "--replay", str(folder / CASSETTE.relative_to(SAMPLE)),
         "--report-json", str(out)]
    )  # fmt: skip
    assert status == EXIT_OK, capsys.readouterr().out[-2000:]
    report = _report(out)
    assert len(report["results"]) == 20
    turns = [turn for case in report["results"] for turn in case["turns"]]
    assert len(turns) == 68
    for turn in turns:
        assert turn["passed"] and turn["tools_matched"]
        assert _metric(turn)["passed"] is True and _metric(turn)["score"] == 1.0


# -- live, against the oracle ---------------------------------------------------------------


@pytest.fixture(scope="module")
def oracle(tmp_path_factory: pytest.TempPathFactory) -> Iterator[int]:
    """The oracle's port, one process for the module: it keeps no state between requests
    (each answer is found from the messages sent), so the two live runs can share it."""
    log = (tmp_path_factory.mktemp("oracle") / "oracle.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, str(ORACLE), "--port", "0", "--quiet"],
        cwd=SAMPLE,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=log,
        text=True,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 30)
        match = LISTENING.match(proc.stdout.readline() if ready else "")
        assert match is not None and match.group(2) == "20", "the oracle did not start"
        yield int(match.group(1))
    finally:
        proc.terminate()
        proc.wait(timeout=10)
        log.close()


def _replayed_alone(state: Any, case: dict[str, Any]) -> list[list[str]]:
    """The case's calls, in order, on fresh instances of its record: what each should return."""
    instances = state.new_instances(state.record(case["test_name"]))
    return [
        [
            state.execute(instances, state.bare_name(call["name"]), (), call["args"])
            for call in turn["tool_invocations"]
        ]
        for turn in case["turns"]
    ]


def test_live_cases_keep_their_own_state_under_parallel_64_and_a_model_matrix(
    tmp_path: Path, oracle: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy(tmp_path)
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{oracle}")
    out = tmp_path / "report.json"
    status = main(
        ["run", str(folder), "--no-save", "--parallel", "64", "--model", "ollama:qwen2.5:7b",
         "--model", "ollama:llama3.1:8b", "--report-json", str(out)]
    )  # fmt: skip
    assert status == EXIT_OK, capsys.readouterr().out[-3000:]
    report = _report(out)
    assert len(report["results"]) == 40  # 20 cases x 2 models
    state = load_file(folder / "bfcl_state.py", "bfcl_state_under_test")
    calls = 0
    for case in report["results"]:
        got = [[str(call["result"]) for call in turn["tool_invocations"]] for turn in case["turns"]]
        assert got == _replayed_alone(state, case), case["test_name"]
        calls += sum(len(turn) for turn in got)
        assert all(_metric(turn)["passed"] for turn in case["turns"])
    assert calls > 200  # the oracle made every ground-truth call, through the real tools


#: Two file-system cases (the same class, each its own instances) and one with MathAPI.
CLAUDE_CASES = ("multi_turn_base_0", "multi_turn_base_1", "multi_turn_base_15")


@pytest.mark.slow
def test_the_claude_path_passes_with_each_cases_own_state(
    tmp_path: Path, oracle: int, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Provider anthropic: the Claude Code CLI bundled with claude-agent-sdk is offered all 49
    tools as MCP tools (`mcp__tools__…`) and streams Anthropic messages to the oracle; the
    cases, run at once, pass both views, and each tool result is that of the case's own
    calls replayed alone on fresh instances."""
    folder = _copy(tmp_path)
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{oracle}")
    monkeypatch.setenv("ANTHROPIC_API_KEY", "oracle")
    out = tmp_path / "report.json"
    chosen = [arg for name in CLAUDE_CASES for arg in ("--case", name)]
    status = main(
        ["run", str(folder), "--no-save", "--parallel", "3", "--model",
         "anthropic:claude-sonnet-4-5", *chosen, "--report-json", str(out)]
    )  # fmt: skip
    assert status == EXIT_OK, capsys.readouterr().out[-3000:]
    report = _report(out)
    assert sorted(case["test_name"] for case in report["results"]) == list(CLAUDE_CASES)
    state = load_file(folder / "bfcl_state.py", "bfcl_state_claude_path")
    names = set()
    for case in report["results"]:
        got = [[str(call["result"]) for call in turn["tool_invocations"]] for turn in case["turns"]]
        assert got == _replayed_alone(state, case), case["test_name"]
        assert all(turn["passed"] and _metric(turn)["passed"] for turn in case["turns"])
        names |= {call["name"] for turn in case["turns"] for call in turn["tool_invocations"]}
    assert {"mcp__tools__cd", "mcp__tools__mv", "mcp__tools__mean"} <= names


def test_the_sample_is_what_the_importer_writes() -> None:
    """The sample's agent file, tools and data came from `import bfcl`; its copied files
    (state, grader, BFCL's classes with their licence) are the importer's current ones."""
    from holodeck_lsp.importers.bfcl.importer import COPIED, SUITE_FILES

    for relative in COPIED:
        assert (SAMPLE / relative).read_text() == (SUITE_FILES / relative).read_text(), relative
    text = (SAMPLE / "agent.yaml").read_text()
    assert text.count("  # bfcl: multi_turn_base_") == 20


def test_the_suites_doc_pointers_name_the_bfcl_page() -> None:
    """The agent file's header and the copied state and grader point at the page about BFCL
    (docs/importing-bfcl.md), in the importer's templates and in the sample alike."""
    from holodeck_lsp.importers.bfcl.importer import SUITE_FILES
    from holodeck_lsp.importers.bfcl.suite import AGENT_HEADER

    page = "docs/importing-bfcl.md"
    assert (SAMPLE.parents[1] / page).is_file()
    [pointer] = [line for line in AGENT_HEADER.splitlines() if "docs/" in line]
    assert page in pointer and "{" not in pointer
    assert pointer in (SAMPLE / "agent.yaml").read_text().splitlines()[:5]
    for name in ("bfcl_state.py", "bfcl_grader.py"):
        for folder in (SUITE_FILES, SAMPLE):
            head = (folder / name).read_text().split('"""', 2)[1]
            assert page in head and "docs/importing.md" not in head, folder / name
