"""checker/yaml_nesting.py: a text nested deeper than the composer can recurse is refused at
the place the limit is passed, before ruamel.yaml's C composer sees it (which would end the
process with SIGSEGV); real suites never reach the exact pass."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import load_agent_text
from holodeck_lsp.checker.yaml_document import parse_yaml
from holodeck_lsp.checker.yaml_nesting import (
    MAX_NESTING,
    NestingTooDeep,
    check_nesting,
    within_bound,
)
from holodeck_lsp.schema.codes import Code

DEEP = 28_000  # what crashed the composer (issue 35)

FAMILIES = {
    "flow sequences": ("x: " + "[" * DEEP + "]" * DEEP + "\n", (0, 3 + MAX_NESTING - 1)),
    "flow mappings": ("x: " + "{a: " * DEEP + "1" + "}" * DEEP + "\n", (0, 3 + 4 * 499)),
    "compact block sequences": ("x:\n  " + "- " * DEEP + "y\n", (1, 2 + 2 * 499)),
    "indented lines": ("x:\n" + "".join(" " * i + "-\n" for i in range(0, 1200, 2)), (500, 998)),
    "carriage-return lines": ("x:\r" + "".join(" " * i + "-\r" for i in range(0, 1200, 2)), None),
}


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_text_past_the_limit_is_one_error_at_the_place(family: str) -> None:
    text, where = FAMILIES[family]
    document = parse_yaml(text, {})
    assert document.root is None
    [problem] = document.problems
    assert problem.code is Code.TOO_DEEP
    assert f"more than {MAX_NESTING} levels" in problem.message
    if where is not None:
        assert (problem.range.start.line, problem.range.start.character) == where


def test_the_checker_reports_it_in_the_agent_file() -> None:
    text = "name: a\nmodel:\n  provider: openai\n  name: " + "[" * DEEP + "\n"
    result = load_agent_text(text, Path("agent.yaml"))
    assert [d.code for d in result.diagnostics] == [Code.TOO_DEEP]
    assert result.diagnostics[0].range.start.line == 3


def test_quotes_comments_and_block_scalars_do_not_count() -> None:
    brackets = "[" * (MAX_NESTING * 3)
    text = (
        f'a: "{brackets}"\n'
        f"b: '{brackets}'\n"
        f"# {brackets}\n"
        f"c: |\n  {brackets}\n"
        f"d: plain{brackets}\n"
    )
    assert not within_bound(text)  # the exact pass decides
    check_nesting(text)
    assert parse_yaml(text, {}).problems == []


def test_nesting_up_to_the_limit_is_read() -> None:
    levels = MAX_NESTING - 1  # the root mapping is one level
    check_nesting("x: " + "[" * levels + "]" * levels)
    with pytest.raises(NestingTooDeep):
        check_nesting("x: " + "[" * (levels + 1) + "]" * (levels + 1))


def test_a_syntax_error_before_the_limit_is_left_to_the_composer() -> None:
    text = "x: [[[ }\n" + "[" * DEEP
    check_nesting(text)  # the composer stops at the same error
    [problem] = parse_yaml(text, {}).problems
    assert problem.code is Code.YAML_SYNTAX


def test_a_real_suite_stays_under_the_counting_bound() -> None:
    sample = Path(__file__).resolve().parents[2] / "sample" / "financial-assistant" / "agent.yaml"
    assert within_bound(sample.read_text(encoding="utf-8"))


def test_the_bound_counts_line_heads_and_brackets() -> None:
    assert within_bound("a:\n" + " " * 248 + "b: 1\n")
    assert not within_bound("a:\n" + " " * 249 + "b: 1\n")
    assert not within_bound("a:\r" + "- " * 125 + "x")  # a line that starts after \r
    assert within_bound("x: " + "[" * 497)
    assert not within_bound("x: " + "[" * 498)


def test_a_deep_text_behind_a_form_only_pyyaml_reads_is_refused_in_a_child() -> None:
    """libyaml's parser stops at the URL in the flow mapping, so counting events ends there;
    the text that `yaml_rewrite` makes readable must be checked again before the C composer
    sees it (a child process: a regression would be SIGSEGV, not a failed assertion)."""
    import subprocess
    import sys

    program = (
        "from holodeck_lsp.checker.yaml_document import parse_yaml\n"
        "text = 'model: {provider: ollama, name: x, endpoint: http://localhost:11434}\\n'\n"
        f"text += 'x: ' + '[' * {DEEP} + '\\n'\n"
        "print([(p.code.value, p.range.start.line) for p in parse_yaml(text, {}).problems])\n"
    )
    child = subprocess.run(
        [sys.executable, "-c", program], capture_output=True, text=True, timeout=120
    )
    assert child.returncode == 0, child.stderr
    assert "('HD003', 1)" in child.stdout
