"""Cause-first messages (checker/located.py): every diagnostic's message is the cause and the
fix; the location (test case, turn, expected tool, argument, field) is kept apart, as `where`,
and composed the same way for every code — a short suffix for one-line readers (the editor,
JSON, SARIF, GitHub) and the full form in `check`'s text output."""

from __future__ import annotations

from pathlib import Path

import pytest

from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.checker.loader import LoadOptions, load_agent_file, load_agent_text
from holodeck_lsp.checker.located import Step, Where, where_of
from holodeck_lsp.schema.codes import Code

CORPUS = Path(__file__).resolve().parent.parent / "corpus"
AGENTS = sorted(CORPUS.glob("*/agent.yaml"))

AGENT = """\
name: demo
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: Be helpful.
tools:
  - name: subtract
    type: function
    description: Return a minus b.
    file: tools.py
    function: subtract
test_cases:
  - name: c1
    turns:
      - input: first
      - input: second
        expected_tools:
          - name: subtract
            args:
              a: {regex: "^(2009.*$"}
  - input: unnamed
    ground_truth: 12
"""


def load(tmp_path: Path, text: str) -> list[Diagnostic]:
    path = tmp_path / "agent.yaml"
    path.write_text(text, encoding="utf-8")
    (tmp_path / "tools.py").write_text("def subtract(a, b):\n    return a - b\n")
    options = LoadOptions(env={}, home=tmp_path / "home")
    return list(load_agent_text(text, path, options).diagnostics)


def only(diagnostics: list[Diagnostic], code: Code) -> Diagnostic:
    (found,) = [d for d in diagnostics if d.code is code]
    return found


def test_a_broken_regex_reads_cause_first_everywhere(tmp_path: Path) -> None:
    regex = only(load(tmp_path, AGENT), Code.BAD_REGEX)
    assert regex.message.startswith("regex does not compile: missing ), unterminated subpattern")
    assert "escape special characters" in regex.message
    assert "test case" not in regex.message and "c1" not in regex.message
    assert regex.location == "test case 'c1', turn 1, expected tool 'subtract', arg 'a', `regex`"
    assert regex.located_message == (
        f"{regex.message} (case 'c1', turn 1, tool subtract, arg a, regex)"
    )
    assert regex.check_message == f"{regex.message} (in {regex.location})"
    # The rest of the record is unchanged: the same field path and case label as before.
    assert regex.field_path == "test_cases[0].turns[1].expected_tools[0].args.a.regex"
    assert regex.test_case == "c1"


def test_an_unnamed_case_is_named_by_its_index(tmp_path: Path) -> None:
    wrong = only(load(tmp_path, AGENT), Code.WRONG_TYPE)
    assert wrong.message == 'must be a string, got integer 12; quote it: "12"'
    assert wrong.located_message.endswith(" (case #1, ground_truth)")
    assert wrong.location == "test case #1, `ground_truth`"


def test_outside_a_test_case_the_location_is_the_field_path(tmp_path: Path) -> None:
    text = AGENT.replace("  name: gpt-4o-mini\n", "  name: gpt-4o-mini\n  temprature: 0.2\n")
    unknown = only(load(tmp_path, text), Code.UNKNOWN_KEY)
    assert unknown.message == "unknown key `temprature`; did you mean `temperature`?"
    assert unknown.located_message == f"{unknown.message} (model.temprature)"
    assert unknown.check_message == f"{unknown.message} (in model.temprature)"


def test_a_merged_union_error_keeps_its_location(tmp_path: Path) -> None:
    # `response_format` is a mapping or a string: two pydantic errors, one diagnostic.
    text = AGENT.replace("test_cases:", "response_format: 3\ntest_cases:")
    wrong = only([d for d in load(tmp_path, text) if d.test_case is None], Code.WRONG_TYPE)
    assert wrong.message == "must be a mapping or a string, got integer 3"
    assert wrong.located_message == f"{wrong.message} (response_format)"


def test_a_file_level_problem_has_no_location(tmp_path: Path) -> None:
    (syntax,) = load(tmp_path, "name: [unclosed\n")
    assert not syntax.where
    assert syntax.located_message == syntax.message == syntax.check_message


def test_a_key_that_is_no_string_is_shown_under_args() -> None:
    data = {"test_cases": [{"name": "c", "expected_tools": [{"name": "record", "args": {1: 2}}]}]}
    where, label = where_of(data, ("test_cases", 0, "expected_tools", 0, "args", 1))
    assert label == "c"
    assert where == Where((Step("case", "c"), Step("tool", "record")), "args[1]")
    assert where.full() == "test case 'c', expected tool 'record', `args[1]`"


@pytest.mark.parametrize("agent", AGENTS, ids=[p.parent.name for p in AGENTS])
def test_no_message_of_the_corpus_starts_with_its_location(agent: Path) -> None:
    trusted = (agent.parent / "TRUSTED").exists()
    options = LoadOptions(trusted=trusted, env={}, home=agent.parent / "no-home")
    loaded = load_agent_file(agent, options=options)
    for diagnostic in loaded.diagnostics:
        assert not diagnostic.message.startswith(("test case", "turn ")), diagnostic
        if diagnostic.test_case is not None:
            # Inside a case, the location names the case; the message does not repeat it.
            assert diagnostic.location.startswith("test case "), diagnostic
            assert diagnostic.location not in diagnostic.message
            assert diagnostic.located_message.startswith(diagnostic.message + " (case ")
