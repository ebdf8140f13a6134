"""Selecting and iterating through the real console script, on replayed runs (no network):
--case (repeatable, globs), -k, --turn with its number, -x, --last-failed after a failing
replay, the first line, the check's warnings before the run, "report written to" lines."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

# The console script as a process per test: run by CI and by `pytest FILE`, not the loop.
pytestmark = pytest.mark.slow

SCRIPT = Path(sys.executable).with_name("holodeck-lsp")

AGENT = """\
name: agent
model: {provider: openai, name: gpt-4o-mini}
instructions: {inline: "Answer briefly."}
evaluations:
  metrics:
    - {type: standard, metric: equality}
test_cases:
  - {name: revenue-2019, input: "r19", ground_truth: "1"}
  - {name: revenue-2020, input: "r20", ground_truth: "2"}
  - {name: margin, input: "m", ground_truth: "3"}
  - name: dialogue
    turns:
      - {input: "d0", ground_truth: "4"}
      - {input: "d1", ground_truth: "5"}
"""


def turn(text: str, response: str) -> dict[str, Any]:
    return {"input": text, "response": response, "tool_calls": [], "error": None}


def write_suite(folder: Path, answers: dict[str, str]) -> Path:
    (folder / "agent.yaml").write_text(AGENT, encoding="utf-8")
    names = [("revenue-2019", ["r19"]), ("revenue-2020", ["r20"]), ("margin", ["m"])]
    cases = [
        {"name": name, "index": index, "turns": [turn(t, answers[t]) for t in inputs]}
        for index, (name, inputs) in enumerate(names)
    ]
    cases.append(
        {
            "name": "dialogue",
            "index": 3,
            "turns": [turn("d0", answers["d0"]), turn("d1", answers["d1"])],
        }
    )
    tape = folder / "tape.json"
    data = {"format": "holodeck-cassette", "version": 1, "agent": "agent", "cases": cases}
    tape.write_text(json.dumps(data), encoding="utf-8")
    return tape


RIGHT = {"r19": "1", "r20": "2", "m": "3", "d0": "4", "d1": "5"}


def run(folder: Path, *args: str) -> subprocess.CompletedProcess[str]:
    if not SCRIPT.exists():
        pytest.skip("holodeck-lsp is not installed in this environment")
    environment = {**os.environ}
    environment.pop("NO_COLOR", None)
    return subprocess.run(
        [str(SCRIPT), "run", "agent.yaml", "--replay", "tape.json", *args],
        capture_output=True,
        text=True,
        cwd=folder,
        timeout=60,
        check=False,
        env=environment,
    )


def verdicts(out: str) -> list[str]:
    return [line.strip() for line in out.splitlines() if line.startswith(("  PASSED", "  FAILED"))]


def test_the_first_line_comes_first_and_says_what_runs(tmp_path: Path) -> None:
    write_suite(tmp_path, RIGHT)
    done = run(tmp_path)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == (
        "running agent.yaml: 4 cases, 5 turns — replaying tape.json"
    )


def test_case_is_repeatable_and_takes_globs(tmp_path: Path) -> None:
    write_suite(tmp_path, RIGHT)
    done = run(tmp_path, "--case", "revenue-*", "--case", "dialogue")
    assert done.returncode == 0, done.stderr
    assert [v.split()[1] for v in verdicts(done.stdout)] == [
        "revenue-2019",
        "revenue-2020",
        "dialogue",
    ]
    nothing = run(tmp_path, "--case", "cost-*")
    assert nothing.returncode == 2
    assert "--case 'cost-*' matches no case (names: 'revenue-2019'" in nothing.stderr


def test_k_selects_by_expression_on_names(tmp_path: Path) -> None:
    write_suite(tmp_path, RIGHT)
    done = run(tmp_path, "-k", "revenue and not 2019")
    assert [v.split()[1] for v in verdicts(done.stdout)] == ["revenue-2020"]
    bad = run(tmp_path, "-k", "revenue and")
    assert bad.returncode == 2 and "the expression ends too early" in bad.stderr


def test_turn_is_shown_with_its_number(tmp_path: Path) -> None:
    write_suite(tmp_path, {**RIGHT, "d1": "wrong"})
    done = run(tmp_path, "--case", "dialogue", "--turn", "1")
    assert done.returncode == 1
    assert "      turn 1: " in done.stdout
    assert "running agent.yaml: 1 case, 1 turn" in done.stdout


def test_fail_fast_stops_at_the_first_failing_case(tmp_path: Path) -> None:
    write_suite(tmp_path, {**RIGHT, "r19": "wrong"})
    done = run(tmp_path, "-x", "--parallel", "1")
    assert done.returncode == 1
    assert "stopped after the first failure, revenue-2019 (--fail-fast)" in done.stdout
    assert verdicts(done.stdout)[0] == "FAILED  revenue-2019"
    # The cases after it were not answered.
    assert "PASSED  margin" not in done.stdout


def test_last_failed_reruns_what_failed_in_the_last_run(tmp_path: Path) -> None:
    write_suite(tmp_path, {**RIGHT, "m": "wrong", "d0": "wrong"})
    first = run(tmp_path)
    assert first.returncode == 1
    state = tmp_path / ".holodeck"
    assert (state / ".gitignore").read_text(encoding="utf-8").splitlines()[-1] == "*"
    recorded = json.loads((state / "last-run.agent.yaml.json").read_text(encoding="utf-8"))
    assert recorded["failed"] == ["margin", "dialogue"]
    again = run(tmp_path, "--last-failed")
    assert [v.split()[1] for v in verdicts(again.stdout)] == ["margin", "dialogue"]
    assert "running the 2 case(s) that failed last time" in again.stderr
    # Fixed answers: the failing ones pass, and then nothing is left to re-run.
    write_suite(tmp_path, RIGHT)
    fixed = run(tmp_path, "--last-failed")
    assert fixed.returncode == 0
    assert [v.split()[1] for v in verdicts(fixed.stdout)] == ["margin", "dialogue"]
    after = run(tmp_path, "--last-failed")
    assert "no case failed last time: running every case" in after.stderr


def test_warnings_are_printed_before_the_run_and_reports_say_where(tmp_path: Path) -> None:
    write_suite(tmp_path, RIGHT)
    text = AGENT.replace(
        '{name: margin, input: "m", ground_truth: "3"}',
        '{name: margin, input: "m", ground_truth: "3", expected_tools: [serach]}',
    )
    (tmp_path / "agent.yaml").write_text(text, encoding="utf-8")
    done = run(tmp_path, "--report-json", "out/report.json", "--junit", "out/junit.xml")
    assert "warning: no declared tool name contains 'serach'" in done.stderr
    assert "(in test case 'margin', expected tool 'serach') [HD201]" in done.stderr
    assert "1 warning from the check; running anyway" in done.stderr
    assert "report written to out/report.json\n" in done.stdout
    assert "report written to out/junit.xml\n" in done.stdout
    assert (tmp_path / "out" / "report.json").is_file()


def test_verdicts_are_coloured_only_when_asked_or_on_a_terminal(tmp_path: Path) -> None:
    write_suite(tmp_path, {**RIGHT, "m": "wrong"})
    plain = run(tmp_path)
    assert "\x1b[" not in plain.stdout  # a pipe: no colour
    coloured = run(tmp_path, "--color", "always")
    assert "\x1b[32;1mPASSED\x1b[0m  revenue-2019" in coloured.stdout
    assert "\x1b[31;1mFAILED\x1b[0m  margin" in coloured.stdout
