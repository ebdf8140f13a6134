"""Emacs (batch mode) with eglot as a real LSP client, configured with the eglot block of
docs/editors/emacs.md (trusted, with the sample's cassette): eglot_probe.el opens a copy of
sample/financial-assistant, waits for the first diagnostics, makes and undoes an error (shown
by Flymake), applies a quick fix picked from eglot's code action menu, completes a matcher
kind, hovers `fuzzy`, goes to a tool's definition from an `expected_tools` entry
(xref-find-definitions, M-.) and lists its references (xref-find-references' backend), runs a
failing turn through its "Run turn" code action (eglot shows no code lenses) and reads the
run's diagnostics as Flymake shows them, then runs the case through its "Run case" action and
the whole file through "Run all test cases"; the verdicts are compared with `holodeck-lsp run
--replay` of the same cassette."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

from tests.editors.sample_verdicts import sample_verdicts
from tests.editors.test_neovim import (
    CASSETTE,
    SAMPLE,
    _missing,
    case_turn_spans,
    key_at,
    turn_spans,
    unmatched_reasons,
)
from tests.server.lsp_client import HOME, installed_server

pytestmark = pytest.mark.slow  # a real Emacs and server

REPO = Path(__file__).resolve().parents[2]
DOC = REPO / "docs" / "editors" / "emacs.md"
PROBE = Path(__file__).with_name("eglot_probe.el")
FIRST_LINE = ";; holodeck-lsp with eglot"
UNTRUSTED = "(:trusted :json-false)"
TIMEOUT = 300  # seconds; about 40 on an idle machine, several times that under load


def emacs_with_eglot() -> str:
    emacs = shutil.which("emacs")
    if emacs is None:
        return _missing("emacs is not installed: apt-get install -y emacs-nox elpa-eglot")
    check = subprocess.run(
        [emacs, "--batch", "-q", "--eval", "(require 'eglot)"],
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "HOME": HOME},
    )
    if check.returncode != 0:
        return _missing(f"eglot is not installed (apt-get install -y elpa-eglot): {check.stderr}")
    return emacs


def doc_snippet(first_line: str) -> str:
    """The ```elisp block of docs/editors/emacs.md that starts with `first_line` (one only)."""
    blocks = re.findall(r"```elisp\n(.*?)```", DOC.read_text(encoding="utf-8"), re.S)
    found = [block for block in blocks if block.startswith(first_line)]
    assert len(found) == 1, f"{DOC}: no single ```elisp block starting {first_line!r}"
    return found[0]


def eglot_block() -> str:
    return doc_snippet(FIRST_LINE)


def run_emacs(
    emacs: str, config_file: Path, probe: Path, spec_file: Path, *, cwd: Path, home: Path
) -> dict[str, Any]:
    """`emacs --batch` with the config and the probe, $HOLODECK_EGLOT_SPEC = `spec_file`, a
    fresh HOME; the JSON result the probe wrote to the spec's "out", which must name no error."""
    out = Path(json.loads(spec_file.read_text(encoding="utf-8"))["out"])
    home.mkdir()
    env = {**os.environ, "HOME": str(home), "HOLODECK_EGLOT_SPEC": str(spec_file)}
    try:
        done = subprocess.run(
            [emacs, "--batch", "-q", "-l", str(config_file), "-l", str(probe)],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired as error:
        pytest.fail(f"emacs did not quit within {TIMEOUT} s: {error.stdout!r} {error.stderr!r}")
    assert out.exists(), f"emacs wrote no result (exit {done.returncode}):\n{done.stderr}"
    result: dict[str, Any] = json.loads(out.read_text(encoding="utf-8"))
    assert not result["errors"], (result, done.stderr[-3000:])
    return result


def test_eglot_diagnoses_completes_hovers_and_runs_a_turn(tmp_path: Path) -> None:
    emacs = emacs_with_eglot()
    suite = tmp_path / "financial-assistant"
    shutil.copytree(SAMPLE, suite, ignore=shutil.ignore_patterns("__pycache__", ".holodeck"))
    agent = suite / "agent.yaml"
    lines = agent.read_text(encoding="utf-8").splitlines()
    spans = turn_spans(lines)
    # The CLI's verdicts (of the sample, which `agent` copies): every case, and case 0's.
    every_case = sample_verdicts()
    expected = every_case[0]
    turns = {turn["turn_index"]: turn for turn in expected["turns"]}
    failing = min(index for index, turn in turns.items() if not turn["passed"])
    assert len(turns) > 1, "Run turn is offered in multi-turn cases"

    # The page's block, trusted for this test with the sample's cassette (as the page says).
    block = eglot_block()
    assert UNTRUSTED in block and '"holodeck-lsp"' in block, block
    config = block.replace(UNTRUSTED, f'(:trusted t :cassettePath "{CASSETTE}")').replace(
        '"holodeck-lsp"', json.dumps(installed_server())
    )
    config_file = tmp_path / "init.el"
    config_file.write_text(config, encoding="utf-8")

    provider = next(i for i, line in enumerate(lines) if line.startswith("model: {provider:"))
    fuzzy_line, fuzzy_column = key_at(lines, "fuzzy", spans[0][0])
    misspelt = key_at(lines, "fuzzy", fuzzy_line + 1)[0]
    entry = next(i for i, line in enumerate(lines) if line.strip() == "- name: subtract")
    tool_line = lines.index("  - name: subtract")  # the tool's declaration
    naming = [
        i for i, line in enumerate(lines) if line.strip() in ("- name: subtract", "name: subtract")
    ]
    tools_py = (suite / "tools.py").read_text(encoding="utf-8").splitlines()
    def_line = next(i for i, line in enumerate(tools_py) if line.startswith("def subtract("))
    out = tmp_path / "out.json"
    spec = {
        "out": str(out),
        "agent": str(agent),
        "fault": {"line": provider, "from": "provider: ollama", "to": "provider: olama"},
        "quickfix": {"line": misspelt, "from": "fuzzy:", "to": "fuzy:", "fix": "Change to 'fuzzy'"},
        "complete": {"line": fuzzy_line, "text": " " * fuzzy_column + "fu"},
        "hover": [fuzzy_line, fuzzy_column + 1],
        "definition": [entry, lines[entry].index("subtract") + 1],
        "references": [tool_line, lines[tool_line].index("subtract") + 1],
        "run_at": key_at(lines, "ground_truth", spans[failing][0])[0],
    }
    spec_file = tmp_path / "spec.json"
    spec_file.write_text(json.dumps(spec), encoding="utf-8")
    result = run_emacs(emacs, config_file, PROBE, spec_file, cwd=suite, home=tmp_path / "home")
    assert result["server"] == "holodeck-lsp", result
    # The clean sample: nothing from the checker. The fault: HD103 on its line, then gone.
    assert not result["first_diagnostics"], result["first_diagnostics"]
    [fault] = result["fault_diagnostics"]
    assert fault["line"] == provider and "HD103" in fault["text"], fault
    assert "olama" in fault["text"] and fault["type"] == "eglot-error", fault
    assert not result["fixed_diagnostics"], result["fixed_diagnostics"]
    # The quick fix: HD125 on the misspelt matcher kind, its "Change to 'fuzzy'" picked from
    # eglot's code action menu, the line as it was and the diagnostic gone.
    [misspelling] = result["quickfix_diagnostics"]
    assert misspelling["line"] == misspelt and "HD125" in misspelling["text"], misspelling
    assert result["quickfix_original"] == lines[misspelt], result
    assert result["quickfix_line"] == lines[misspelt], (result["quickfix_line"], lines[misspelt])
    assert not result["quickfix_after"], result["quickfix_after"]
    # Completion: the matcher kinds for a half-typed key under an argument.
    assert result["completion_prefix"] == "fu", result
    assert set(result["completions"]) == {"fuzzy"}, result["completions"]  # `regex` ≠ "fu…"
    assert "not edit distance" in result["hover"], result["hover"]
    # M-. on an expected_tools entry: the tool's `def` in tools.py.
    assert result["definition"] == {
        "file": str(suite / "tools.py"),
        "line": def_line,
        "character": len("def "),
    }, result["definition"]
    # xref-find-references on the tool's name: its declaration and every entry naming it.
    found = sorted((Path(ref["file"]).name, ref["line"]) for ref in result["references"])
    assert found == [("agent.yaml", i) for i in naming], result["references"]
    assert len(naming) >= 3, naming

    # The code actions at the failing turn: Run turn / Run case / Run all, and the run.
    assert len(result["actions"]) == 3, result["actions"]
    assert result["actions"][0].startswith(f"HoloDeck: Run turn {failing} of case ")
    assert result["actions"][1].startswith("HoloDeck: Run case ")
    assert result["actions"][2] == "HoloDeck: Run all test cases"
    assert result["run_arguments"] == [agent.as_uri(), 0, failing], result
    assert result["run_status"] == "done", result
    assert result["run_summary"]["failed"] == 1, result
    # Flymake shows the run's failures inside the failing turn, naming the wrong argument.
    first, end = spans[failing]
    run_diagnostics = result["run_diagnostics"]
    assert run_diagnostics, result
    assert all(first <= d["line"] < end for d in run_diagnostics), run_diagnostics
    reasons = unmatched_reasons(turns[failing])
    assert reasons, turns[failing]
    for reason in reasons:
        assert any(reason in d["text"] for d in run_diagnostics), (reason, run_diagnostics)
    # Run case, picked from eglot's menu at the same point: the whole case, compared with the
    # CLI's verdict; Flymake shows run failures exactly in the case's failing turns.
    assert any(title.startswith("HoloDeck: Run case ") for title in result["case_offered"])
    assert result["case_status"] == "done", result
    passed = int(expected["passed"])
    assert result["case_summary"]["passed"] == passed, result["case_summary"]
    assert result["case_summary"]["failed"] == 1 - passed, result["case_summary"]
    case_diagnostics = [d for d in result["case_diagnostics"] if d["type"] == "eglot-error"]
    for (first, end), turn in zip(spans, expected["turns"], strict=True):
        inside = [d for d in case_diagnostics if first <= d["line"] < end]
        assert bool(inside) != turn["passed"], (turn["turn_index"], inside)
    # Run all test cases, from the same menu: the CLI's verdicts for every case; Flymake shows
    # run failures exactly in the failing turns of every case.
    assert "HoloDeck: Run all test cases" in result["all_offered"], result["all_offered"]
    assert result["all_status"] == "done", result
    passed = sum(case["passed"] for case in every_case)
    assert result["all_summary"]["passed"] == passed, result["all_summary"]
    assert result["all_summary"]["failed"] == len(every_case) - passed, result["all_summary"]
    all_diagnostics = [d for d in result["all_diagnostics"] if d["type"] == "eglot-error"]
    for spans_of_case, case in zip(case_turn_spans(lines), every_case, strict=True):
        for (first, end), turn in zip(spans_of_case, case["turns"], strict=True):
            inside = [d for d in all_diagnostics if first <= d["line"] < end]
            assert bool(inside) != turn["passed"], (case["name"], turn["turn_index"], inside)
