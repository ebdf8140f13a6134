"""YAML syntax errors a person understands (checker/yaml_syntax_errors.py): each fault from a
real file through the real loader and parser, at the line and column a person would fix."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.loader import load_agent_file
from holodeck_lsp.schema.codes import Code

HEAD = (
    'name: demo\nmodel:\n  provider: openai\n  name: gpt-4o-mini\ninstructions:\n  inline: "Hi."\n'
)


def only_error(tmp_path: Path, text: str) -> tuple[int, int, str, Code]:
    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    result = load_agent_file(path)
    assert result.agent is None
    assert len(result.errors) == 1, result.errors
    error = result.errors[0]
    start = error.range.start
    return start.line + 1, start.character + 1, error.message, error.code


def test_an_unclosed_quote_points_at_the_opening_quote(tmp_path: Path) -> None:
    text = HEAD + 'description: "never closed\nauthor: me\ntest_cases:\n  - input: hi\n'
    line, column, message, code = only_error(tmp_path, text)
    assert (line, column, code) == (7, 14, Code.YAML_SYNTAX)
    assert message.startswith('YAML syntax error: this string is never closed: add the closing "')
    # The parser's own words stay, as a second sentence.
    assert message.endswith(
        "The parser says: while scanning a quoted scalar found unexpected end of stream"
    )


def test_a_quote_closed_by_a_later_line_points_at_the_opening_quote(tmp_path: Path) -> None:
    text = HEAD + 'description: "never closed\ntest_cases:\n  - name: a\n    input: "hi"\n'
    line, column, message, _ = only_error(tmp_path, text)
    assert (line, column) == (7, 14)
    assert "this string is never closed on its line" in message
    assert 'runs on to the next " (line 10)' in message
    assert "(line 10, column 13)" in message


def test_a_single_quote_too(tmp_path: Path) -> None:
    line, column, message, _ = only_error(tmp_path, HEAD + "description: 'open\n")
    assert (line, column) == (7, 14)
    assert "add the closing '" in message


@pytest.mark.parametrize(
    ("tail", "where"),
    [
        ("tools:\n\t- name: x\n", (8, 1)),
        ("test_cases:\n  - name: a\n  \tinput: hi\n", (9, 3)),
    ],
    ids=["tab-at-line-start", "tab-after-spaces"],
)
def test_a_tab_in_indentation_is_named_at_the_tab(
    tmp_path: Path, tail: str, where: tuple[int, int]
) -> None:
    line, column, message, _ = only_error(tmp_path, HEAD + tail)
    assert (line, column) == where
    assert message.startswith("YAML syntax error: tab characters can't indent YAML; use spaces.")
    assert ". The parser says: " in message


@pytest.mark.parametrize("text", ["", "\n\n", "# nothing yet\n"], ids=["empty", "blank", "comment"])
def test_an_empty_file_says_so(tmp_path: Path, text: str) -> None:
    line, column, message, code = only_error(tmp_path, text)
    assert (line, column, code) == (1, 1, Code.ROOT_NOT_MAPPING)
    assert message.startswith("the file is empty")


def test_a_line_indented_under_a_value_names_the_block(tmp_path: Path) -> None:
    text = 'name: demo\nmodel:\n  provider: openai\n   name: gpt\ninstructions: {inline: "x"}\n'
    line, column, message, _ = only_error(tmp_path, text)
    assert (line, column) == (4, 4)
    assert (
        "line 4 is indented 3 spaces, more than `provider` on line 3, so YAML reads it as more "
        "of provider's value, where `name:` is not allowed; indent it 2 spaces like `provider` "
        "to keep it in `model`'s block. The parser says: mapping values are not allowed"
    ) in message


def test_a_line_between_two_blocks_names_the_block_it_left(tmp_path: Path) -> None:
    text = 'name: demo\nmodel:\n    provider: openai\n  name: gpt\ninstructions: {inline: "x"}\n'
    line, column, message, _ = only_error(tmp_path, text)
    assert (line, column) == (4, 3)
    assert (
        "line 4 is indented 2 spaces, which lines up with no block: the keys of `model` "
        "(line 2) are indented 4; indent it 4 spaces to keep it there, or 0 to end `model`'s "
        "block. The parser says: while parsing a block mapping did not find expected key"
    ) in message


def test_a_case_key_out_of_line_names_the_case_item(tmp_path: Path) -> None:
    text = HEAD + "test_cases:\n  - name: a\n    input: hi\n   ground_truth: x\n"
    line, column, message, _ = only_error(tmp_path, text)
    assert (line, column) == (10, 4)
    assert (
        "line 10 is indented 3 spaces, which lines up with no block: the keys of the item on "
        "line 8 are indented 4; indent it 4 spaces to keep it there."
    ) in message


def test_other_faults_keep_the_parsers_words(tmp_path: Path) -> None:
    line, _, message, _ = only_error(tmp_path, HEAD + "tools: {a: 1\n")
    assert line == 7
    assert message.startswith("YAML syntax error: while parsing a flow mapping")
