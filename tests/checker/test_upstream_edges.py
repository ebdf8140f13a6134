"""Loader edges where upstream HoloDeck (holodeck-ai 0.7.1) is the reference: `${VAR}` values
substituted into the text, empty includes, subagent prompt files, non-string `args:` keys.
scripts/compare_with_upstream.py runs the same files through HoloDeck itself."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import LoadOptions, LoadResult, load_agent_file
from holodeck_lsp.schema.codes import Code

AGENT = """\
name: demo
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: Be helpful.
"""
CASES = "test_cases:\n  - name: one\n    input: hi\n"


def load(tmp_path: Path, text: str, env: dict[str, str] | None = None) -> LoadResult:
    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    return load_agent_file(path, options=LoadOptions(home=tmp_path / "home", env=env or {}))


def codes(result: LoadResult) -> list[Code]:
    return [d.code for d in result.diagnostics]


# --------------------------------------------------------------------------- ${VAR} in text


@pytest.mark.parametrize("value", ["[unclosed", "a: b", "{x"])
def test_a_value_with_yaml_syntax_breaks_the_file_as_upstream(tmp_path: Path, value: str) -> None:
    text = AGENT.replace("inline: Be helpful.", "inline: ${PROMPT}") + CASES
    result = load(tmp_path, text, {"PROMPT": value})
    (error,) = [d for d in result.errors if d.code is Code.ENV_VALUE_CHANGES_YAML]
    assert error.range.start.line == 5  # at the ${PROMPT} reference
    column = text.splitlines()[5].index("${PROMPT}")
    assert (error.range.start.character, error.range.end.character) == (column, column + 9)
    assert "substitutes ${PROMPT} into the text before parsing" in error.message
    assert value not in error.message  # values are never printed (they may be secrets)
    assert 'put the reference in quotes ("${PROMPT}")' in error.message


def test_a_quoted_reference_or_a_plain_value_is_fine(tmp_path: Path) -> None:
    text = AGENT.replace("inline: Be helpful.", 'inline: "${PROMPT}"') + CASES
    assert not codes(load(tmp_path, text, {"PROMPT": "a: b"}))
    plain = AGENT.replace("inline: Be helpful.", "inline: ${PROMPT}") + CASES
    assert not codes(load(tmp_path, plain, {"PROMPT": "just words, 25587"}))


def test_a_value_that_changes_the_yaml_without_breaking_it_is_a_warning(tmp_path: Path) -> None:
    text = AGENT.replace("inline: Be helpful.", "inline: ${PROMPT}") + CASES
    result = load(tmp_path, text, {"PROMPT": "Be brief #sk-live-123"})
    (warning,) = result.diagnostics
    assert warning.code is Code.ENV_VALUE_CHANGES_YAML and not result.errors
    assert "sk-live-123" not in warning.message and "` #`" in warning.message


# --------------------------------------------------------------------------- includes


@pytest.mark.parametrize("content", ["{}\n", "false\n", "0\n", "[]\n", "''\n"])
def test_an_empty_ish_include_means_no_test_cases(tmp_path: Path, content: str) -> None:
    (tmp_path / "cases.yaml").write_text(content, encoding="utf-8")
    result = load(tmp_path, AGENT + "test_cases_file: cases.yaml\n")
    assert not result.errors, [d.message for d in result.errors]
    assert result.agent is not None and not result.agent.test_cases


def test_test_cases_null_in_an_include_is_rejected(tmp_path: Path) -> None:
    include = tmp_path / "cases.yaml"
    include.write_text("description: none yet\ntest_cases:\n", encoding="utf-8")
    result = load(tmp_path, AGENT + "test_cases_file: cases.yaml\n")
    (error,) = result.errors
    assert error.code is Code.TEST_CASES_FILE_INVALID and Path(error.file) == include
    assert "`test_cases:` is empty (null) here, which HoloDeck rejects" in error.message


# --------------------------------------------------------------------------- prompt_file

CLAUDE = """\
claude:
  agents:
    helper:
      description: Looks things up.
      prompt_file: PROMPT
"""


def test_a_missing_subagent_prompt_file_is_an_error_at_the_key(tmp_path: Path) -> None:
    text = AGENT + CLAUDE.replace("PROMPT", "prompts/helper.md") + CASES
    (error,) = load(tmp_path, text).errors
    assert error.code is Code.FILE_UNREADABLE
    assert error.field_path == "claude.agents.helper.prompt_file"
    assert error.range.start.line == text.splitlines().index("      prompt_file: prompts/helper.md")
    assert "prompt_file 'prompts/helper.md' not found" in error.message


def test_a_blank_subagent_prompt_file_is_an_error(tmp_path: Path) -> None:
    (tmp_path / "helper.md").write_text("  \n\n", encoding="utf-8")
    (error,) = load(tmp_path, AGENT + CLAUDE.replace("PROMPT", "helper.md") + CASES).errors
    assert error.code is Code.BLANK_STRING and "is blank" in error.message


def test_a_subagent_prompt_file_with_text_is_fine(tmp_path: Path) -> None:
    (tmp_path / "helper.md").write_text("You look things up.\n", encoding="utf-8")
    assert not codes(load(tmp_path, AGENT + CLAUDE.replace("PROMPT", "helper.md") + CASES))


# --------------------------------------------------------------------------- args keys


def test_non_string_arg_names_are_accepted_with_a_lint(tmp_path: Path) -> None:
    text = AGENT + (
        "test_cases:\n  - name: one\n    input: hi\n"
        "    expected_tools:\n      - name: lookup\n        args: {1: 2}\n"
    )
    result = load(tmp_path, text)
    assert not result.errors, [d.message for d in result.errors]
    lint = next(d for d in result.diagnostics if d.code is Code.NON_STRING_ARG_NAME)
    assert "(holodeck-lsp lint)" in lint.message and 'quote it: "1"' in lint.message
    assert result.agent is not None and result.agent.test_cases is not None
    (tool,) = result.agent.test_cases[0].expected_tools or []
    assert not isinstance(tool, str) and tool.args is not None and 1 in tool.args


# --------------------------------------------------------------------------- the differential


def test_the_edge_files_get_upstreams_recorded_verdicts(tmp_path: Path) -> None:
    # The part of scripts/compare_with_upstream.py that needs no HoloDeck: its edge files,
    # through our loader, against the verdicts holodeck-ai 0.7.1 gave them (the script
    # re-checks that record against HoloDeck itself).
    scripts = Path(__file__).resolve().parents[2] / "scripts"
    sys.path.insert(0, str(scripts))
    try:
        compare = importlib.import_module("compare_with_upstream")
    finally:
        sys.path.remove(str(scripts))
    files = compare.write_edges(tmp_path / "edges")
    assert {file.parent.name for file in files} == set(compare.UPSTREAM_EDGE_VERDICTS)
    for file in files:
        options = LoadOptions(home=tmp_path / "home", env=compare.EDGE_ENV)
        ours = "reject" if load_agent_file(file, options=options).errors else "accept"
        assert ours == compare.UPSTREAM_EDGE_VERDICTS[file.parent.name], file.parent.name
