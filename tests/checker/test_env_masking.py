"""checker/env_masking.py: a `${VAR}`'s value never appears in a diagnostic (the loader quotes
values in its messages); the reference is written back instead. Through the real loader, and
through the `check` console script in every output format."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import asdict
from pathlib import Path

import pytest

from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.checker.env_masking import MIN_SECRET_LENGTH, mask_env_values, referenced_values
from holodeck_lsp.checker.loader import LoadOptions, load_agent_file

PLANTED = "sk-planted-'secret\"-7f3a"
#: Every fault here quotes the substituted value: a number, a choice, a test case's name (the
#: location of its own fault), a turn's input that is not a string, a fault in an include.
LEAKY_AGENT = """\
name: leaky
model:
  provider: openai
  name: gpt-4o
  temperature: ${PLANTED_KEY}
instructions:
  inline: hello
test_cases_file: cases.yaml
test_cases:
  - name: "${PLANTED_KEY}"
    input: [1]
    ground_truth: x
    expected_tools:
      - {name: add, args: {a: {fuzzy: 1, regex: "${PLANTED_KEY}"}}}
"""
LEAKY_CASES = """\
- name: "in ${PLANTED_KEY} include"
  turns:
    - {input: q, ground_truth: "${PLANTED_KEY}", retries: "${PLANTED_KEY}"}
"""
ENV = {"PLANTED_KEY": PLANTED}


def _suite(tmp_path: Path) -> Path:
    agent = tmp_path / "agent.yaml"
    agent.write_text(LEAKY_AGENT, encoding="utf-8")
    (tmp_path / "cases.yaml").write_text(LEAKY_CASES, encoding="utf-8")
    return agent


def _forms(value: str) -> list[str]:
    return [value, repr(value)[1:-1], value.replace('"', '\\"'), "planted"]


def _shown(diagnostic: Diagnostic) -> str:
    return repr(asdict(diagnostic))


def test_no_diagnostic_of_a_load_quotes_a_substituted_value(tmp_path: Path) -> None:
    result = load_agent_file(_suite(tmp_path), options=LoadOptions(env=ENV, global_config=False))
    assert len(result.diagnostics) >= 3
    for diagnostic in result.diagnostics:
        for form in _forms(PLANTED):
            assert form not in _shown(diagnostic), diagnostic
    # The user still sees where the value came from.
    temperature = [d for d in result.diagnostics if d.field_path == "model.temperature"]
    assert temperature and "${PLANTED_KEY}" in temperature[0].message


def test_the_same_faults_without_the_variable_are_reported_the_same_way(tmp_path: Path) -> None:
    """Masking changes what a message quotes, never which faults are found."""
    agent = _suite(tmp_path)
    env = {"PLANTED_KEY": "sk-other-value-x"}
    masked = load_agent_file(agent, options=LoadOptions(env=env, global_config=False))
    plain_text = agent.read_text(encoding="utf-8").replace("${PLANTED_KEY}", "sk-other-value-x")
    plain = tmp_path / "plain"
    plain.mkdir()
    (plain / "agent.yaml").write_text(plain_text, encoding="utf-8")
    (plain / "cases.yaml").write_text(
        LEAKY_CASES.replace("${PLANTED_KEY}", "sk-other-value-x"), encoding="utf-8"
    )
    unmasked = load_agent_file(plain / "agent.yaml", options=LoadOptions(global_config=False))
    assert [(d.code, d.field_path) for d in masked.diagnostics] == [
        (d.code, d.field_path) for d in unmasked.diagnostics
    ]
    assert any("sk-other-value-x" in d.message for d in unmasked.diagnostics)
    assert not any("sk-other-value-x" in _shown(d) for d in masked.diagnostics)


def test_short_values_are_not_treated_as_secrets() -> None:
    short = "x" * (MIN_SECRET_LENGTH - 1)
    forms = referenced_values(
        ["a: ${SHORT}\nb: ${LONG}\nc: ${UNSET}"], {"SHORT": short, "LONG": "abcd"}
    )
    assert forms == {"abcd": "${LONG}"}
    assert mask_env_values([], forms) == []


@pytest.mark.parametrize("output", ["text", "json", "sarif", "github"])
def test_check_prints_the_reference_not_the_value(tmp_path: Path, output: str) -> None:
    agent = _suite(tmp_path)
    done = subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", "check", str(agent), "--format", output],
        capture_output=True,
        text=True,
        env={**os.environ, **ENV, "HOME": str(tmp_path)},
        check=False,
        cwd=tmp_path,
    )
    assert done.returncode == 2, done.stderr
    printed = done.stdout + done.stderr
    for form in _forms(PLANTED):
        assert form not in printed
    assert "PLANTED_KEY" in printed
