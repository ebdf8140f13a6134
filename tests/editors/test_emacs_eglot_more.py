"""Emacs (batch mode) with eglot 1.9, configured with the eglot block of docs/editors/emacs.md
(as test_emacs_eglot.py), for what that test does not drive: eglot_more_probe.el renames a
tool with `eglot-rename` across the agent and its `test_cases_file` include, reads the hover
(ElDoc's text) on a turn that regressed against the stored baseline run, and cancels a run
with the page's `M-x holodeck-cancel-run` (eglot 1.9 takes no `$/progress`: the run's code
action stops waiting, the run goes on until cancelled), and calls the page's `M-x
holodeck-run-report` and `M-x holodeck-compare-with-baseline` before and after a Run all from
`eglot-code-actions`, reading the buffer each fills (or what it says when there is nothing to
show)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from tests.editors.shared_history import history_copy
from tests.editors.slow_sample import MARK, RELEASE, with_slow_grader
from tests.editors.test_emacs_eglot import (
    UNTRUSTED,
    doc_snippet,
    eglot_block,
    emacs_with_eglot,
    run_emacs,
)
from tests.editors.test_neovim import CASSETTE, SAMPLE
from tests.server.lsp_client import installed_server
from tests.server.runs.run_suite import TURN0_LINE, write_suite
from tests.server.runs.stored_history import bad_cassette, cli, stored_ids

pytestmark = pytest.mark.slow  # a real Emacs and server (and, for the history, three CLI runs)

PROBE = Path(__file__).with_name("eglot_more_probe.el")
CANCEL_LINE = ";; holodeck-lsp: M-x holodeck-cancel-run"
REPORT_LINE = ";; holodeck-lsp: M-x holodeck-run-report and M-x holodeck-compare-with-baseline"
#: How long the grader added for the cancel test waits per turn for its release (the probe
#: releases it after the cancel: slow_sample.py), and eglot's wait for a run.
GRADE_SECONDS = 30
EGLOT_WAIT = 1  # the run's executeCommand only (its grader holds it until after the cancel)


def run_probe(tmp_path: Path, agent: Path, options: str, spec: dict[str, Any]) -> dict[str, Any]:
    """Emacs with the page's block (initializationOptions `options`) and its commands (cancel,
    report, comparison), eglot_more_probe.el doing `spec`'s step on `agent`; the probe's
    result."""
    emacs = emacs_with_eglot()
    block = eglot_block()
    assert UNTRUSTED in block and '"holodeck-lsp"' in block, block
    config = block.replace(UNTRUSTED, options).replace(
        '"holodeck-lsp"', json.dumps(installed_server())
    )
    config_file = tmp_path / "init.el"
    commands = [doc_snippet(CANCEL_LINE), doc_snippet(REPORT_LINE)]
    config_file.write_text("\n".join([config, *commands]), encoding="utf-8")
    out = tmp_path / "out.json"
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps({"out": str(out), "agent": str(agent), **spec}))
    return run_emacs(emacs, config_file, PROBE, spec_file, cwd=agent.parent, home=tmp_path / "home")


def copy_sample(tmp_path: Path) -> Path:
    suite = tmp_path / "financial-assistant"
    shutil.copytree(SAMPLE, suite, ignore=shutil.ignore_patterns("__pycache__", ".holodeck"))
    return suite / "agent.yaml"


def test_eglot_rename_renames_a_tool_in_the_agent_and_its_include(tmp_path: Path) -> None:
    agent = copy_sample(tmp_path)
    # The sample's cases moved to a `test_cases_file` include: the rename crosses two files.
    text = agent.read_text(encoding="utf-8")
    at = text.index("\ntest_cases:\n")
    cases = text[at + 1 :]
    (agent.parent / "cases.yaml").write_text(cases, encoding="utf-8")
    agent_text = f"{text[: at + 1]}test_cases_file: cases.yaml\n"
    agent.write_text(agent_text, encoding="utf-8")
    tool = agent_text.splitlines().index("  - name: subtract")
    entries = cases.count("name: subtract\n")
    assert entries >= 2, entries

    result = run_probe(
        tmp_path,
        agent,
        UNTRUSTED,
        {"step": "rename", "at": [tool, len("  - name: s")], "to": "minus"},
    )

    assert result["renaming"] == "subtract", result
    assert sorted(result["buffers"]) == ["agent.yaml", "cases.yaml"], result
    # eglot asked before editing the include, which no buffer visited (the user said y).
    assert str(agent.parent / "cases.yaml") in result["asked"], result
    # On disk after the save: the tool's name and every entry naming it, nothing else.
    renamed = agent_text.replace("  - name: subtract\n", "  - name: minus\n")
    assert agent.read_text(encoding="utf-8") == renamed
    renamed_cases = cases.replace("name: subtract\n", "name: minus\n")
    assert (agent.parent / "cases.yaml").read_text(encoding="utf-8") == renamed_cases


def test_eglot_hover_marks_a_turn_that_regressed_against_the_baseline(tmp_path: Path) -> None:
    # Stored by the real CLI: bad, good, bad. The latest run (bad) against the one before
    # (good): turn 0 of `two-turns` passed there and fails now.
    suite = history_copy(tmp_path / "suite")
    ids = stored_ids(suite)
    assert len(ids) == 3, ids

    result = run_probe(
        tmp_path,
        suite / "agent.yaml",
        "(:trusted t)",
        {"step": "regression", "at": [TURN0_LINE, 10]},
    )

    hover = result["hover"]
    assert hover and "⇣ Regressed" in hover, hover
    assert f"run {ids[1]}" in hover, hover  # the baseline: the run before the latest
    assert "before: ✓ passed → now: ✗ failed" in hover, hover
    assert "numeric" in hover and "1.00 → 0.00" in hover, hover


def shown_buffer(result: dict[str, Any], command: str) -> dict[str, Any]:
    """The buffer the page's `command` opened (no message instead), read-only Markdown."""
    shown = result[command]
    assert shown["message"] is None, shown
    buffer: dict[str, Any] = shown["buffer"]
    assert buffer is not None, result
    assert buffer["mode"] in ("markdown-mode", "text-mode"), buffer["mode"]
    assert buffer["read_only"] is True, buffer["read_only"]
    return buffer


def test_a_run_eglot_gave_up_waiting_for_is_cancelled_by_holodeck_cancel_run(
    tmp_path: Path,
) -> None:
    agent = copy_sample(tmp_path)
    assert with_slow_grader(agent, GRADE_SECONDS) == 5
    lines = agent.read_text(encoding="utf-8").splitlines()
    first_input = next(i for i, line in enumerate(lines) if line.startswith("      - input:"))

    result = run_probe(
        tmp_path,
        agent,
        f'(:trusted t :cassettePath "{CASSETTE}")',
        {
            "step": "cancel",
            "action": "HoloDeck: Run case ",
            "at": first_input,
            "started": str(agent.parent / MARK),
            "release": str(agent.parent / RELEASE),
            "timeout": EGLOT_WAIT,
        },
    )

    # eglot 1.9 declares no window capabilities: no workDoneProgress, so no $/progress.
    assert result["client_window"] is None, result
    assert "$/progress" not in result["methods"], result["methods"]
    assert "window/workDoneProgress/create" not in result["methods"], result["methods"]
    # The code action's wait ends at jsonrpc's timeout, with the run still going.
    assert "Timed out" in result["waited"], result
    assert result["cancel_message"] == "HoloDeck run: cancelling", result
    answer = result["answer"]
    assert answer["status"] == "cancelled", answer
    [case] = answer["results"]
    skipped = [turn for turn in case["turns"] if turn["skipped"]]
    assert skipped and all("cancelled" in turn["errors"][0] for turn in skipped), case["turns"]
    # Ended after the turn it was in (released after the cancel), before another turn's
    # grader would have stopped waiting.
    assert result["ended_after_cancel"] < GRADE_SECONDS, result
    assert result["after"] == "idle", result


def first_input_line(agent: Path) -> int:
    lines = agent.read_text(encoding="utf-8").splitlines()
    return next(i for i, line in enumerate(lines) if line.lstrip().startswith("- input:"))


def report_in_emacs(tmp_path: Path, agent: Path, cassette: Path) -> dict[str, Any]:
    """The probe's "report" step: the page's report and comparison commands, a Run all from
    eglot-code-actions (trusted, replaying `cassette`), both commands again."""
    return run_probe(
        tmp_path,
        agent,
        f'(:trusted t :cassettePath "{cassette}")',
        {"step": "report", "at": first_input_line(agent)},
    )


def test_holodeck_run_report_shows_the_last_run_of_emacs_as_markdown(tmp_path: Path) -> None:
    agent = copy_sample(tmp_path)  # no stored run: .holodeck is not copied
    name = next(
        line for line in agent.read_text(encoding="utf-8").splitlines() if line.startswith("name:")
    )
    name = name.split(":", 1)[1].strip(' "')

    result = report_in_emacs(tmp_path, agent, CASSETTE)

    # Before any run in this session: the server's reason, no buffer.
    before = result["report_before"]
    assert before["message"] == "HoloDeck report: no run of this file in this session yet"
    assert before["buffer"] is None, before
    said = result["compare_before"]["message"]
    assert said.startswith("HoloDeck comparison: no stored run of agent.yaml yet"), said
    assert result["compare_before"]["buffer"] is None, result["compare_before"]

    # After Run all: the report of that run, in *HoloDeck report*.
    answer = result["answer"]
    assert answer["status"] == "done", answer["status"]
    summary = answer["summary"]
    assert 0 < summary["passed"] < summary["total_tests"], summary  # the sample's cassette
    buffer = shown_buffer(result, "report")
    lines = buffer["text"].splitlines()
    assert lines[0] == f"# Test report: {name}", lines[:3]
    counts = (
        f"**Failed**: {summary['passed']} of {summary['total_tests']} test cases passed",
        f"{summary['passed_turns']} of {summary['total_turns']} turns passed",
    )
    assert lines[2].startswith(counts[0]) and counts[1] in lines[2], lines[2]
    for index, case in enumerate(answer["results"]):
        verdict = "✅ passed" if case["passed"] else "❌ failed"
        assert f"## {case['test_name']} (#{index}): {verdict}" in lines, case["test_name"]
    # One stored run now (the Run all): nothing before it to compare with.
    said = result["compare"]["message"]
    assert said.startswith("HoloDeck comparison: only one stored run of agent.yaml"), said
    assert result["compare"]["buffer"] is None, result["compare"]


def test_holodeck_compare_with_baseline_shows_what_the_emacs_run_regressed(
    tmp_path: Path,
) -> None:
    # The baseline: the suite's good cassette, stored by the real CLI. Emacs's Run all
    # replays the bad one (turn 0 of `two-turns` and `single` answered wrongly).
    suite = tmp_path / "suite"
    suite.mkdir()
    agent = write_suite(suite)
    cli(suite, "run", "agent.yaml", "--replay", "run.cassette.json", "--quiet")
    bad = suite / "bad.cassette.json"
    bad.write_text(json.dumps(bad_cassette()), encoding="utf-8")

    result = report_in_emacs(tmp_path, agent, bad)

    # Before Emacs's run, the baseline is the only stored run: nothing to compare it with.
    said = result["compare_before"]["message"]
    assert said.startswith("HoloDeck comparison: only one stored run of agent.yaml"), said
    assert result["compare_before"]["buffer"] is None, result["compare_before"]
    ids = stored_ids(suite)
    assert len(ids) == 2, ids  # the baseline and Emacs's Run all
    assert result["answer"]["status"] == "done", result["answer"]["status"]
    buffer = shown_buffer(result, "compare")
    text = buffer["text"]
    lines = text.splitlines()
    assert lines[0] == "## Run comparison: ❌ regressions", lines[:3]
    # The session's run (the Run all) against the run before it, the baseline.
    sides = [line for line in lines if line.startswith(("- **Base:**", "- **Head:**"))]
    assert len(sides) == 2 and ids[0] in sides[0], sides
    assert sides[1].startswith("- **Head:** this session's results"), sides
    # The tables `holodeck-lsp compare` prints for the same two stored runs.
    printed = cli(suite, "compare", ids[0], ids[1], "--format", "markdown")
    tables = printed[printed.index("### Regressions") :].strip()
    assert text.strip().endswith(tables), text
    assert "### Regressions (2)" in tables, tables
    for turn in ("two-turns turn 0 ", "single turn 0 "):
        regressed = [line for line in lines if line.startswith(f"| {turn}")]
        assert len(regressed) == 1 and "passed → failed" in regressed[0], (turn, text)
