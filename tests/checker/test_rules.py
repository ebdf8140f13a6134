"""One test per validation rule of agent.yaml: the code, the (1-based) line, the severity and
what the message must say (the test case by name or `#index`, the turn, and how to fix it).

Every load goes through `load_agent_text` with `home=tmp_path / "home"` (so the developer's
~/.holodeck/config.yaml never leaks in) and an explicit `env`.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
from collections.abc import Mapping
from pathlib import Path
from typing import Protocol

import pytest

from holodeck_lsp.checker.diagnostics import Diagnostic, Severity
from holodeck_lsp.checker.loader import LoadOptions, LoadResult, load_agent_text
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.matchers import FuzzyMatcher, LiteralMatcher, RegexMatcher

AGENT = """\
name: demo
model:
  provider: openai
  name: gpt-4o-mini
instructions:
  inline: Be helpful.
"""

TOOLS = """\
tools:
  - name: subtract
    type: function
    description: Return a minus b.
    file: tools.py
    function: subtract
"""

TOOLS_PY = '''\
def subtract(a: float, b: float) -> float:
    """Return a minus b."""
    return a - b


def anything(**kwargs):
    return kwargs
'''


class Check(Protocol):
    def __call__(
        self, text: str, env: Mapping[str, str] | None = None, *, trusted: bool = False
    ) -> LoadResult: ...


@pytest.fixture
def check(tmp_path: Path) -> Check:
    """Write `text` to tmp_path/agent.yaml and load it (no real home, empty env by default)."""

    def run(
        text: str, env: Mapping[str, str] | None = None, *, trusted: bool = False
    ) -> LoadResult:
        path = tmp_path / "agent.yaml"
        path.write_text(text, encoding="utf-8")
        options = LoadOptions(
            trusted=trusted, env={} if env is None else env, home=tmp_path / "home"
        )
        return load_agent_text(text, path, options)

    return run


def cases(body: str, *, tools: bool = False) -> str:
    """AGENT (+ TOOLS) with a `test_cases:` block; `body` is dedented and indented by 2."""
    head = AGENT + (TOOLS if tools else "")
    return head + "test_cases:\n" + textwrap.indent(textwrap.dedent(body), "  ")


def line_of(text: str, needle: str, nth: int = 0) -> int:
    """1-based number of the line holding the `nth` occurrence of `needle`."""
    found = [number for number, line in enumerate(text.splitlines(), 1) if needle in line]
    assert len(found) > nth, f"{needle!r} occurs {len(found)} time(s) in the text"
    return found[nth]


def line(diagnostic: Diagnostic) -> int:
    return diagnostic.range.start.line + 1


def dump(result: LoadResult) -> str:
    return "\n".join(
        f"L{line(d)}:{d.range.start.character} {d.severity.name} {d.code.value} "
        f"[{d.field_path}] {d.message}"
        for d in result.diagnostics
    )


def only(result: LoadResult, code: Code) -> Diagnostic:
    """The one diagnostic of `result`, which must have `code`."""
    assert len(result.diagnostics) == 1, dump(result)
    (diagnostic,) = result.diagnostics
    assert diagnostic.code is code, dump(result)
    return diagnostic


def error(result: LoadResult, code: Code) -> Diagnostic:
    """The one error of `result` (there may be other non-error diagnostics)."""
    errors = result.errors
    assert len(errors) == 1, dump(result)
    assert errors[0].code is code, dump(result)
    assert result.agent is None
    return errors[0]


def clean(result: LoadResult) -> None:
    assert result.diagnostics == [], dump(result)
    assert result.agent is not None


# --------------------------------------------------------------------------- YAML level


@pytest.mark.parametrize(
    ("tail", "bad_line"),
    [
        ("description: a: b\n", "description: a: b"),
        ("tools:\n  - name: x\n   type: function\n", "   type: function"),
        ('description: "never closed\nauthor: me\n', 'description: "never closed'),
    ],
    ids=["mapping-in-plain-value", "bad-indentation", "unclosed-quote"],
)
def test_yaml_syntax_error_is_reported_at_its_line(check: Check, tail: str, bad_line: str) -> None:
    text = AGENT + tail
    result = check(text)
    diagnostic = only(result, Code.YAML_SYNTAX)
    assert diagnostic.severity is Severity.ERROR
    assert line(diagnostic) == line_of(text, bad_line)
    assert diagnostic.message.startswith("YAML syntax error")
    assert result.agent is None


def test_control_character_is_reported_at_its_line(check: Check) -> None:
    text = AGENT + "description: a\x07b\n"
    diagnostic = only(check(text), Code.YAML_SYNTAX)
    assert line(diagnostic) == line_of(text, "description:")
    assert diagnostic.range.start.character == len("description: a")


def test_duplicate_key_is_a_warning_and_holodeck_keeps_the_last_value(check: Check) -> None:
    text = cases(
        """\
        - name: c1
          input: first question
          input: second question
        """
    )
    result = check(text)
    diagnostic = only(result, Code.DUPLICATE_KEY)
    assert diagnostic.severity is Severity.WARNING
    assert line(diagnostic) == line_of(text, "input: second")
    assert f"first at line {line_of(text, 'input: first')}" in diagnostic.message
    assert "'input'" in diagnostic.message
    assert result.agent is not None and result.agent.test_cases is not None
    assert result.agent.test_cases[0].input == "second question"


def test_nesting_too_deep(check: Check) -> None:
    deep = "{a: " * 150 + "1" + "}" * 150
    text = cases(
        f"""\
        - name: deep
          turns:
            - input: hi
              turn_config: {deep}
        """
    )
    result = check(text)
    assert result.diagnostics, "expected HD003"
    assert {d.code for d in result.diagnostics} == {Code.TOO_DEEP}, dump(result)
    assert {line(d) for d in result.diagnostics} == {line_of(text, "turn_config:")}
    assert all(d.severity is Severity.ERROR for d in result.diagnostics)
    assert "100 levels" in result.diagnostics[0].message
    assert result.agent is None


def test_thousands_deep_flow_nesting_does_not_crash(check: Check) -> None:
    text = AGENT + "response_format: " + "[" * 5000 + "]" * 5000 + "\n"
    result = check(text)
    assert Code.TOO_DEEP in {d.code for d in result.diagnostics}, dump(result)
    assert Code.INTERNAL_ERROR not in {d.code for d in result.diagnostics}
    assert result.agent is None


@pytest.mark.parametrize("text", ["- name: demo\n- model: x\n", "just a string\n", "42\n"])
def test_root_not_a_mapping(check: Check, text: str) -> None:
    diagnostic = only(check(text), Code.ROOT_NOT_MAPPING)
    assert line(diagnostic) == 1
    assert "mapping" in diagnostic.message


# --------------------------------------------------------------------------- ${VAR}

TEMP_AGENT = AGENT.replace("  name: gpt-4o-mini\n", "  name: gpt-4o-mini\n  temperature: ${TEMP}\n")


def test_unset_variable_is_only_a_warning(check: Check) -> None:
    result = check(TEMP_AGENT, env={})
    diagnostic = only(result, Code.ENV_VAR_UNSET)
    assert diagnostic.severity is Severity.WARNING
    assert line(diagnostic) == line_of(TEMP_AGENT, "${TEMP}")
    column = TEMP_AGENT.splitlines()[line(diagnostic) - 1].index("${TEMP}")
    assert (diagnostic.range.start.character, diagnostic.range.end.character) == (
        column,
        column + len("${TEMP}"),
    )
    assert "TEMP" in diagnostic.message and "export TEMP=" in diagnostic.message
    assert result.errors == []


def test_set_variable_is_substituted_and_checked(check: Check) -> None:
    result = check(TEMP_AGENT, env={"TEMP": "0.5"})
    clean(result)
    assert result.agent is not None and result.agent.model.temperature == 0.5


def test_set_variable_with_a_bad_value_is_an_error(check: Check) -> None:
    text = TEMP_AGENT
    diagnostic = only(check(text, env={"TEMP": "abc"}), Code.WRONG_TYPE)
    assert line(diagnostic) == line_of(text, "temperature:")
    assert diagnostic.field_path == "model.temperature"
    assert "'abc'" in diagnostic.message


def test_substituted_number_is_read_as_a_number_like_holodeck(check: Check) -> None:
    # HoloDeck substitutes before parsing: `ground_truth: ${ANSWER}` with ANSWER=25587 is an int.
    text = cases("- input: hi\n  ground_truth: ${ANSWER}\n")
    diagnostic = only(check(text, env={"ANSWER": "25587"}), Code.WRONG_TYPE)
    assert line(diagnostic) == line_of(text, "ground_truth:")


# --------------------------------------------------------------------------- HD100 unknown key


@pytest.mark.parametrize(
    ("text", "bad", "suggestion", "names"),
    [
        (
            cases('- name: c1\n  input: hi\n  grund_truth: "x"\n'),
            "grund_truth:",
            "ground_truth",
            ("test case 'c1'",),
        ),
        (
            cases("- name: c1\n  turns:\n    - input: hi\n    - input: ok\n      groundtruth: x\n"),
            "groundtruth:",
            "ground_truth",
            ("test case 'c1'", "turn 1"),
        ),
        (
            AGENT.replace("  name: gpt-4o-mini\n", "  name: gpt-4o-mini\n  temprature: 0.2\n"),
            "temprature:",
            "temperature",
            ("model.temprature",),
        ),
        (AGENT + "test_case:\n  - input: hi\n", "test_case:", "test_cases", ("test_case",)),
    ],
    ids=["in-test-case", "in-turn", "in-model", "top-level"],
)
def test_unknown_key_with_did_you_mean(
    check: Check, text: str, bad: str, suggestion: str, names: tuple[str, ...]
) -> None:
    diagnostic = only(check(text), Code.UNKNOWN_KEY)
    assert line(diagnostic) == line_of(text, bad)
    assert f"did you mean `{suggestion}`" in diagnostic.message
    assert diagnostic.data.get("suggestion") == suggestion
    for name in names:
        assert name in diagnostic.location


# --------------------------------------------------------------------------- HD101 missing field


def test_missing_model_name(check: Check) -> None:
    text = AGENT.replace("  name: gpt-4o-mini\n", "")
    diagnostic = only(check(text), Code.MISSING_FIELD)
    assert line(diagnostic) == line_of(text, "model:")
    assert diagnostic.field_path == "model.name"
    assert "`name`" in diagnostic.message


def test_missing_instructions(check: Check) -> None:
    text = AGENT.replace("instructions:\n  inline: Be helpful.\n", "")
    diagnostic = only(check(text), Code.MISSING_FIELD)
    assert line(diagnostic) == 1
    assert diagnostic.field_path == "instructions"
    assert "`instructions`" in diagnostic.message


def test_every_missing_field_of_one_mapping_is_reported(check: Check) -> None:
    text = AGENT.replace("  provider: openai\n  name: gpt-4o-mini\n", "  temperature: 0.1\n")
    result = check(text)
    messages = " ".join(d.message for d in result.diagnostics if d.code is Code.MISSING_FIELD)
    assert "`provider`" in messages and "`name`" in messages, dump(result)


# --------------------------------------------------------------------------- HD102 wrong type


def test_unquoted_number_ground_truth_is_rejected_with_quote_hint(check: Check) -> None:
    text = cases("- name: c1\n  input: hi\n  ground_truth: 25587\n")
    diagnostic = only(check(text), Code.WRONG_TYPE)
    assert line(diagnostic) == line_of(text, "ground_truth: 25587")
    assert "test case 'c1'" in diagnostic.location
    assert 'quote it: "25587"' in diagnostic.message
    assert diagnostic.field_path == "test_cases[0].ground_truth"
    assert diagnostic.test_case == "c1"


def test_unquoted_number_in_a_turn_names_the_turn(check: Check) -> None:
    text = cases("- name: c1\n  turns:\n    - input: a\n    - input: b\n      ground_truth: 7\n")
    diagnostic = only(check(text), Code.WRONG_TYPE)
    assert line(diagnostic) == line_of(text, "ground_truth: 7")
    assert "test case 'c1', turn 1" in diagnostic.location
    assert 'quote it: "7"' in diagnostic.message


def test_yaml11_date_input_is_rejected(check: Check) -> None:
    text = cases("- input: 2009-01-01\n")
    diagnostic = only(check(text), Code.WRONG_TYPE)
    assert line(diagnostic) == line_of(text, "input: 2009-01-01")
    assert "test case #0" in diagnostic.location
    assert 'quote it: "2009-01-01"' in diagnostic.message


def test_yaml11_reads_1e3_as_a_string_so_it_is_accepted(check: Check) -> None:
    result = check(cases("- input: hi\n  ground_truth: 1e3\n"))
    clean(result)
    assert result.agent is not None and result.agent.test_cases is not None
    assert result.agent.test_cases[0].ground_truth == "1e3"


@pytest.mark.parametrize("word", ["yes", "No", "on", "OFF", "true"])
def test_yaml11_boolean_ground_truth_is_rejected(check: Check, word: str) -> None:
    text = cases(f"- input: hi\n  ground_truth: {word}\n")
    diagnostic = only(check(text), Code.WRONG_TYPE)
    assert line(diagnostic) == line_of(text, "ground_truth:")
    assert "boolean" in diagnostic.message
    assert f'quote it: "{word}"' in diagnostic.message


def test_non_string_matcher_pattern(check: Check) -> None:
    text = cases(
        """\
        - name: c1
          turns:
            - input: hi
              expected_tools:
                - name: subtract
                  args:
                    a: {fuzzy: 206588}
        """,
        tools=True,
    )
    diagnostic = only(check(text), Code.WRONG_TYPE)
    assert line(diagnostic) == line_of(text, "fuzzy: 206588")
    assert "test case 'c1', turn 0, expected tool 'subtract', arg 'a'" in diagnostic.location
    assert 'fuzzy: "206588"' in diagnostic.message


# --------------------------------------------------------------------------- HD103 / HD104


@pytest.mark.parametrize(
    ("text", "bad", "suggestion"),
    [
        (AGENT.replace("provider: openai", "provider: openia"), "openia", "openai"),
        (
            AGENT + "evaluations:\n  metrics:\n    - type: standard\n      metric: numerc\n",
            "numerc",
            "numeric",
        ),
    ],
    ids=["provider", "metric"],
)
def test_invalid_choice_with_did_you_mean(
    check: Check, text: str, bad: str, suggestion: str
) -> None:
    diagnostic = only(check(text), Code.INVALID_CHOICE)
    assert line(diagnostic) == line_of(text, bad)
    assert f"did you mean '{suggestion}'" in diagnostic.message
    assert diagnostic.data.get("suggestion") == suggestion


@pytest.mark.parametrize(
    ("text", "bad", "bound"),
    [
        (AGENT.replace("gpt-4o-mini\n", "gpt-4o-mini\n  temperature: 3\n"), "temperature", "2"),
        (AGENT.replace("gpt-4o-mini\n", "gpt-4o-mini\n  max_tokens: 0\n"), "max_tokens", "> 0"),
        (AGENT + "execution:\n  parallel_test_cases: 0\n", "parallel_test_cases", ">= 1"),
    ],
    ids=["temperature", "max_tokens", "parallel_test_cases"],
)
def test_out_of_range(check: Check, text: str, bad: str, bound: str) -> None:
    diagnostic = only(check(text), Code.OUT_OF_RANGE)
    assert line(diagnostic) == line_of(text, f"{bad}:")
    assert bad in diagnostic.field_path if diagnostic.field_path else False
    assert bound in diagnostic.message


# --------------------------------------------------------------------------- HD105 too many


def test_1001_test_cases_are_too_many(check: Check) -> None:
    text = AGENT + "test_cases:\n" + "".join(f"  - input: q{i}\n" for i in range(1001))
    diagnostic = only(check(text), Code.TOO_MANY_ITEMS)
    assert line(diagnostic) == line_of(text, "test_cases:")
    assert "at most 1000" in diagnostic.message and "1001" in diagnostic.message


def test_1000_test_cases_are_fine(check: Check) -> None:
    text = AGENT + "test_cases:\n" + "".join(f"  - input: q{i}\n" for i in range(1000))
    clean(check(text))


def _tools(count: int) -> str:
    return "tools:\n" + "".join(
        f"  - name: t{i}\n    type: function\n    description: d\n    file: tools.py\n"
        "    function: f\n"
        for i in range(count)
    )


def test_51_tools_are_too_many(check: Check) -> None:
    text = AGENT + _tools(51)
    diagnostic = only(check(text), Code.TOO_MANY_ITEMS)
    assert line(diagnostic) == line_of(text, "tools:")
    assert "at most 50" in diagnostic.message and "51" in diagnostic.message


def test_50_tools_are_fine(check: Check) -> None:
    clean(check(AGENT + _tools(50)))


@pytest.mark.parametrize(("count", "too_many"), [(10, False), (11, True)])
def test_files_on_a_turn(check: Check, count: int, too_many: bool) -> None:
    files = "".join(f"        - path: f{i}.png\n          type: image\n" for i in range(count))
    text = cases("- name: c1\n  turns:\n    - input: a\n    - input: b\n      files:\n" + files)
    result = check(text)
    if not too_many:
        clean(result)
        return
    diagnostic = only(result, Code.TOO_MANY_ITEMS)
    assert line(diagnostic) == line_of(text, "files:")
    assert "test case 'c1', turn 1" in diagnostic.location
    assert "at most 10 files" in diagnostic.message


# --------------------------------------------------------------------------- strings


def test_blank_turn_input(check: Check) -> None:
    text = cases('- name: c1\n  turns:\n    - input: ok\n    - input: "   "\n')
    diagnostic = only(check(text), Code.BLANK_STRING)
    assert line(diagnostic) == line_of(text, 'input: "   "')
    assert "test case 'c1', turn 1" in diagnostic.location
    assert diagnostic.field_path == "test_cases[0].turns[1].input"
    assert "blank" in diagnostic.message


def test_tool_name_pattern(check: Check) -> None:
    text = AGENT + TOOLS.replace("name: subtract", "name: my-tool")
    diagnostic = only(check(text), Code.PATTERN_MISMATCH)
    assert line(diagnostic) == line_of(text, "my-tool")
    assert "letters, digits and underscores" in diagnostic.message


# --------------------------------------------------------------------------- case shapes


def test_empty_turns(check: Check) -> None:
    text = cases("- name: c1\n  turns: []\n")
    diagnostic = only(check(text), Code.EMPTY_TURNS)
    assert line(diagnostic) == line_of(text, "turns: []")
    assert "test case 'c1'" in diagnostic.location
    assert "- input: ..." in diagnostic.message  # the fix


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("input", "hi"),
        ("ground_truth", '"1"'),
        ("expected_tools", "[subtract]"),
        ("files", "[{path: a.png, type: image}]"),
        ("retrieval_context", "[passage]"),
    ],
)
def test_turns_mixed_with_single_turn_field(check: Check, field: str, value: str) -> None:
    text = cases(f"- name: c1\n  {field}: {value}\n  turns:\n    - input: ok\n", tools=True)
    diagnostic = only(check(text), Code.TURNS_MIXED_WITH_LEGACY)
    assert line(diagnostic) == line_of(text, f"  {field}: ")
    assert diagnostic.range.start.character == 4  # on the key
    assert "test case 'c1'" in diagnostic.location
    assert f"`{field}`" in diagnostic.message
    assert "move them onto the turns" in diagnostic.message


def test_neither_input_nor_turns(check: Check) -> None:
    text = cases("- input: a\n- ground_truth: x\n")
    diagnostic = only(check(text), Code.NO_INPUT_OR_TURNS)
    assert line(diagnostic) == line_of(text, "ground_truth: x")
    assert "test case #1" in diagnostic.location
    assert "`input`" in diagnostic.message and "`turns`" in diagnostic.message
    assert diagnostic.test_case == "#1"


# --------------------------------------------------------------------------- matchers


def _args(args: str, extra: str = "") -> str:
    """A two-turn case whose second turn asserts `subtract` with `args` (flow or block)."""
    return cases(
        "- name: c1\n  turns:\n    - input: a\n    - input: b\n      expected_tools:\n"
        "        - name: subtract\n"
        + extra
        + "          args:\n"
        + textwrap.indent(textwrap.dedent(args), " " * 12),
        tools=True,
    )


def test_malformed_regex(check: Check) -> None:
    text = _args('a: {regex: "^(2009.*$"}\n')
    diagnostic = only(check(text), Code.BAD_REGEX)
    assert line(diagnostic) == line_of(text, "regex:")
    assert "test case 'c1', turn 1, expected tool 'subtract', arg 'a'" in diagnostic.location
    assert "at position 1" in diagnostic.message
    assert "escape" in diagnostic.message
    # the range is inside the pattern's scalar
    source_line = text.splitlines()[line(diagnostic) - 1]
    assert diagnostic.range.start.character > source_line.index("regex:")


@pytest.mark.parametrize(
    ("args", "bad", "hint"),
    [
        ('a: {fuzzy: "1", regex: "1"}\n', "regex", "not both"),
        ('a:\n  fuzzy: "206588"\n  case_insensitive: true\n', "case_insensitive", "remove"),
    ],
    ids=["both-kinds", "extra-key"],
)
def test_bad_matcher_shape(check: Check, args: str, bad: str, hint: str) -> None:
    text = _args(args)
    diagnostic = only(check(text), Code.BAD_MATCHER_SHAPE)
    assert line(diagnostic) == line_of(text, f"{bad}:")
    assert "test case 'c1', turn 1, expected tool 'subtract', arg 'a'" in diagnostic.location
    assert hint in diagnostic.message


def test_count_zero(check: Check) -> None:
    text = _args("a: 1\n", extra="          count: 0\n")
    diagnostic = only(check(text), Code.BAD_COUNT)
    assert line(diagnostic) == line_of(text, "count: 0")
    assert "test case 'c1', turn 1, expected tool 'subtract'" in diagnostic.location
    assert "at least 1" in diagnostic.message


@pytest.mark.parametrize(
    ("key", "value"),
    [
        ("absolute_tolerance", "-0.5"),
        ("relative_tolerance", ".nan"),
        ("absolute_tolerance", "-.inf"),
    ],
)
def test_bad_tolerance(check: Check, key: str, value: str) -> None:
    text = cases(
        f"""\
        - name: c1
          turns:
            - input: a
              ground_truth: "1"
              evaluations:
                - metric: numeric
                  {key}: {value}
        """
    )
    diagnostic = only(check(text), Code.BAD_TOLERANCE)
    assert line(diagnostic) == line_of(text, f"{key}:")
    assert "test case 'c1', turn 0" in diagnostic.location
    assert ">= 0" in diagnostic.message


def test_expected_tool_entry_that_is_a_number(check: Check) -> None:
    text = cases(
        "- name: c1\n  turns:\n    - input: a\n      expected_tools:\n        - subtract\n"
        "        - 42\n",
        tools=True,
    )
    diagnostic = only(check(text), Code.BAD_EXPECTED_TOOL)
    assert line(diagnostic) == line_of(text, "- 42")
    assert "test case 'c1', turn 0" in diagnostic.location
    assert "`name`" in diagnostic.message


# --------------------------------------------------------------------------- graders


def _grader_agent(spec: str) -> str:
    return cases(
        f"""\
        - name: c1
          turns:
            - input: a
              evaluations:
                - type: code
                  grader: "{spec}"
        """
    )


def test_grader_path_format(check: Check) -> None:
    text = _grader_agent("my_graders.turn_program")
    diagnostic = only(check(text), Code.BAD_GRADER_PATH)
    assert line(diagnostic) == line_of(text, "grader:")
    assert "test case 'c1', turn 0" in diagnostic.location
    assert "module.path:callable" in diagnostic.message


GRADER_MODULE = """\
THRESHOLD = 0.5


def turn_program(ctx):
    return True
"""


@pytest.mark.parametrize(
    ("spec", "code", "says", "static_says"),
    [
        (
            "my_gradres:turn_program",
            Code.GRADER_MODULE_NOT_FOUND,
            "module 'my_gradres' not found",
            "did you mean 'my_graders'",
        ),
        (
            "my_graders:turn_progam",
            Code.GRADER_ATTRIBUTE_MISSING,
            "did you mean 'turn_program'",
            "",
        ),
        ("my_graders:THRESHOLD", Code.GRADER_NOT_CALLABLE, "not callable", ""),
    ],
    ids=["module-missing", "attribute-missing", "not-callable"],
)
@pytest.mark.parametrize("trusted", [False, True], ids=["static", "trusted"])
def test_unresolvable_grader(
    check: Check,
    tmp_path: Path,
    spec: str,
    code: Code,
    says: str,
    static_says: str,
    trusted: bool,
) -> None:
    (tmp_path / "my_graders.py").write_text(GRADER_MODULE, encoding="utf-8")
    text = _grader_agent(spec)
    diagnostic = only(check(text, trusted=trusted), code)
    assert line(diagnostic) == line_of(text, "grader:")
    assert "test case 'c1', turn 0" in diagnostic.location
    assert says in diagnostic.message
    if not trusted:
        assert static_says in diagnostic.message
    assert diagnostic.field_path == "test_cases[0].turns[0].evaluations[0].grader"


def test_resolvable_grader(check: Check, tmp_path: Path) -> None:
    (tmp_path / "my_graders.py").write_text(GRADER_MODULE, encoding="utf-8")
    clean(check(_grader_agent("my_graders:turn_program")))


def test_grader_that_fails_to_import_in_trusted_mode(check: Check, tmp_path: Path) -> None:
    (tmp_path / "exploding.py").write_text("raise RuntimeError('boom')\n", encoding="utf-8")
    text = _grader_agent("exploding:grade")
    diagnostic = only(check(text, trusted=True), Code.GRADER_IMPORT_FAILED)
    assert line(diagnostic) == line_of(text, "grader:")
    assert "boom" in diagnostic.message


# --------------------------------------------------------------------------- test_cases_file


def test_test_cases_and_test_cases_file(check: Check, tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text("- input: hi\n", encoding="utf-8")
    text = cases("- input: hi\n") + "test_cases_file: cases.yaml\n"
    diagnostic = only(check(text), Code.TEST_CASES_AND_FILE)
    assert line(diagnostic) == line_of(text, "test_cases_file:")
    assert "not both" in diagnostic.message


def test_missing_test_cases_file(check: Check) -> None:
    text = AGENT + "test_cases_file: nowhere.yaml\n"
    diagnostic = only(check(text), Code.TEST_CASES_FILE_INVALID)
    assert line(diagnostic) == line_of(text, "test_cases_file:")
    assert "nowhere.yaml" in diagnostic.message and "check the path" in diagnostic.message


INCLUDED = """\
- name: first
  input: hi
- name: second
  input: again
  ground_truth: 25587
- turns: []
"""


def test_faults_of_an_included_file_are_reported_in_that_file(check: Check, tmp_path: Path) -> None:
    include = tmp_path / "suite" / "cases.yaml"
    include.parent.mkdir()
    include.write_text(INCLUDED, encoding="utf-8")
    result = check(AGENT + "test_cases_file: suite/cases.yaml\n")
    assert [d.code for d in result.diagnostics] == [Code.WRONG_TYPE, Code.EMPTY_TURNS], dump(result)
    wrong, empty = result.diagnostics
    assert Path(wrong.file) == include and Path(empty.file) == include
    assert wrong.field_path == "test_cases[1].ground_truth"
    assert line(wrong) == line_of(INCLUDED, "ground_truth: 25587")
    assert "test case 'second'" in wrong.location and 'quote it: "25587"' in wrong.message
    assert empty.field_path == "test_cases[2].turns"
    assert line(empty) == line_of(INCLUDED, "turns: []")
    assert "test case #2" in empty.location
    assert result.agent is None


def test_valid_included_file_under_a_test_cases_key(check: Check, tmp_path: Path) -> None:
    (tmp_path / "cases.yaml").write_text(
        'test_cases:\n  - name: one\n    turns:\n      - input: hi\n        ground_truth: "1"\n',
        encoding="utf-8",
    )
    result = check(AGENT + "test_cases_file: cases.yaml\n")
    clean(result)
    assert result.agent is not None and result.agent.test_cases is not None
    assert [case.name for case in result.agent.test_cases] == ["one"]


# --------------------------------------------------------------------------- agent-level rules


@pytest.mark.parametrize(
    ("instructions", "bad", "says"),
    [
        ("instructions:\n  inline: Be helpful.\n  file: prompt.md\n", "inline:", "not both"),
        ("instructions: {}\n", "instructions:", "`file: prompt.md` or `inline:"),
    ],
    ids=["both", "neither"],
)
def test_instructions_source(check: Check, instructions: str, bad: str, says: str) -> None:
    text = AGENT.replace("instructions:\n  inline: Be helpful.\n", instructions)
    diagnostic = only(check(text), Code.INSTRUCTIONS_SOURCE)
    assert line(diagnostic) == line_of(text, bad)
    assert says in diagnostic.message


def test_duplicate_tool_name_is_reported_on_the_second(check: Check) -> None:
    text = AGENT + TOOLS + TOOLS.removeprefix("tools:\n")
    diagnostic = only(check(text), Code.DUPLICATE_TOOL_NAME)
    assert line(diagnostic) == line_of(text, "name: subtract", nth=1)
    assert "tools[0]" in diagnostic.message and "unique" in diagnostic.message
    assert diagnostic.field_path == "tools[1].name"


AZURE = AGENT.replace("provider: openai", "provider: azure_openai")
AZURE_PROVIDERS = """\
providers:
  azure_openai:
    provider: azure_openai
    name: x
    endpoint: "https://e"
"""


def test_azure_without_endpoint(check: Check) -> None:
    diagnostic = only(check(AZURE), Code.ENDPOINT_REQUIRED)
    assert line(diagnostic) == line_of(AZURE, "provider: azure_openai")
    assert "endpoint" in diagnostic.message and "config.yaml" in diagnostic.message


def test_azure_endpoint_from_project_config(check: Check, tmp_path: Path) -> None:
    (tmp_path / "config.yaml").write_text(AZURE_PROVIDERS, encoding="utf-8")
    result = check(AZURE)
    clean(result)
    assert result.agent is not None and result.agent.model.endpoint == "https://e"
    assert result.agent.model.name == "gpt-4o-mini"  # the agent's own value wins


def test_azure_endpoint_from_user_config(check: Check, tmp_path: Path) -> None:
    home_config = tmp_path / "home" / ".holodeck" / "config.yaml"
    home_config.parent.mkdir(parents=True)
    home_config.write_text(AZURE_PROVIDERS, encoding="utf-8")
    clean(check(AZURE))


def test_exclusive_path_and_url(check: Check) -> None:
    text = cases(
        "- input: hi\n  files:\n    - path: a.png\n      url: https://x/a.png\n      type: image\n"
    )
    diagnostic = only(check(text), Code.EXCLUSIVE_FIELDS)
    assert line(diagnostic) == line_of(text, "url:")
    assert "not both" in diagnostic.message


def test_invalid_value(check: Check) -> None:
    text = AGENT + "description: 2009-13-45\n"
    diagnostic = only(check(text), Code.INVALID_VALUE)
    assert line(diagnostic) == line_of(text, "2009-13-45")
    assert "month" in diagnostic.message


# --------------------------------------------------------------------------- lints


def test_undeclared_expected_tool_is_a_warning(check: Check) -> None:
    text = cases(
        "- name: c1\n  turns:\n    - input: a\n      expected_tools: [subtract, divide]\n",
        tools=True,
    )
    result = check(text)
    diagnostic = only(result, Code.UNDECLARED_TOOL)
    assert diagnostic.severity is Severity.WARNING
    assert line(diagnostic) == line_of(text, "divide")
    assert "'divide'" in diagnostic.message and "(holodeck-lsp lint)" in diagnostic.message
    assert "test case 'c1', turn 0" in diagnostic.location
    assert result.agent is not None  # a lint never fails the load


def test_undeclared_expected_tool_is_information_with_mcp_tools(check: Check) -> None:
    mcp = "  - name: fs\n    type: mcp\n    description: files\n    command: npx\n"
    text = AGENT + TOOLS + mcp + "test_cases:\n  - input: a\n    expected_tools: [read_file]\n"
    result = check(text)
    diagnostic = only(result, Code.UNDECLARED_TOOL)
    assert diagnostic.severity is Severity.INFORMATION
    assert line(diagnostic) == line_of(text, "read_file")
    assert "MCP" in diagnostic.message
    assert result.agent is not None


def test_substring_of_a_declared_tool_is_not_undeclared(check: Check) -> None:
    clean(check(cases("- input: a\n  expected_tools: [subtr]\n", tools=True)))


def test_asserted_arg_not_a_parameter(check: Check, tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS_PY, encoding="utf-8")
    text = _args("a: 1\nbb: 2\n")
    result = check(text)
    diagnostic = only(result, Code.UNKNOWN_TOOL_PARAMETER)
    assert diagnostic.severity is Severity.WARNING
    assert line(diagnostic) == line_of(text, "bb: 2")
    assert "test case 'c1', turn 1, expected tool 'subtract', arg 'bb'" in diagnostic.location
    assert "subtract(a, b)" in diagnostic.message and "did you mean 'b'" in diagnostic.message
    assert result.agent is not None


def test_no_parameter_lint_when_the_function_takes_kwargs(check: Check, tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(TOOLS_PY, encoding="utf-8")
    text = _args("zzz: 1\n").replace("function: subtract", "function: anything")
    clean(check(text))


@pytest.mark.parametrize(
    ("key", "intended"), [("fuzy", "fuzzy"), ("Regex", "regex"), ("regx", "regex")]
)
def test_misspelt_matcher_kind_is_an_error(check: Check, key: str, intended: str) -> None:
    # A deliberate difference: HoloDeck loads it and compares with the literal mapping, which
    # no call sends, so the case could never pass (docs/diagnostics.md, HD125).
    text = _args(f'a: {{{key}: "3"}}\n')
    result = check(text)
    diagnostic = only(result, Code.MISSPELT_MATCHER)
    assert diagnostic.severity is Severity.ERROR
    assert diagnostic.code.value == "HD125"
    assert line(diagnostic) == line_of(text, f"{key}:")
    assert f"did you mean `{intended}`" in diagnostic.message
    assert diagnostic.data == {"suggestion": intended}
    assert "test case 'c1', turn 1, expected tool 'subtract', arg 'a'" in diagnostic.location
    assert "although HoloDeck loads the file" in diagnostic.message
    assert result.agent is None  # an error: `run` refuses the file


@pytest.mark.parametrize("key", ["literl", "literal", "Literal"])
def test_a_literal_kind_key_is_an_error_saying_to_write_the_bare_value(
    check: Check, key: str
) -> None:
    result = check(_args(f'a: {{{key}: "3"}}\n'))
    diagnostic = only(result, Code.MISSPELT_MATCHER)
    assert diagnostic.severity is Severity.ERROR
    assert 'a literal is written as the bare value (`a: "3"`)' in diagnostic.message
    assert diagnostic.data == {}


@pytest.mark.parametrize("key", ["region", "format", "fuzzyness", "mode"])
def test_a_real_one_key_argument_mapping_is_left_alone(check: Check, key: str) -> None:
    clean(check(_args(f'a: {{{key}: "3"}}\n')))


# --------------------------------------------------------------------------- whole files


def test_all_faults_are_reported_in_one_pass(check: Check) -> None:
    text = cases(
        """\
        - name: first
          input: hi
          ground_truth: 5
        - name: second
          turns: []
        """
    )
    result = check(text)
    assert [(d.code, line(d), d.test_case) for d in result.diagnostics] == [
        (Code.WRONG_TYPE, line_of(text, "ground_truth: 5"), "first"),
        (Code.EMPTY_TURNS, line_of(text, "turns: []"), "second"),
    ], dump(result)
    assert result.agent is None


def test_all_faults_of_one_case_are_reported_in_one_pass(check: Check) -> None:
    text = cases(
        """\
        - name: c1
          input: hi
          turns:
            - input: a
              ground_truth: 5
        """
    )
    result = check(text)
    assert {(d.code, line(d)) for d in result.diagnostics} == {
        (Code.TURNS_MIXED_WITH_LEGACY, line_of(text, "input: hi")),
        (Code.WRONG_TYPE, line_of(text, "ground_truth: 5")),
    }, dump(result)


def _tool(name: str) -> str:
    return (
        f"  - name: {name}\n    type: function\n    description: d\n    file: tools.py\n"
        "    function: f\n"
    )


HOT = AGENT.replace("gpt-4o-mini\n", "gpt-4o-mini\n  temperature: 3\n")
TWELVE_FILES = "".join(f"      - {{path: f{i}.png, type: image}}\n" for i in range(11)) + (
    "      - {path: g.bin, type: binary}\n"
)


@pytest.mark.parametrize(
    ("text", "hidden", "other"),
    [
        (
            HOT + "test_cases:\n  - input: x\ntest_cases_file: cases.yaml\n",
            Code.TEST_CASES_AND_FILE,
            Code.OUT_OF_RANGE,
        ),
        (
            AGENT + "test_cases:\n  - input: x\n    ground_truth: 5\ntest_cases_file: c.yaml\n",
            Code.TEST_CASES_AND_FILE,
            Code.WRONG_TYPE,
        ),
        (
            AGENT + "tools:\n" + _tool("t1") + _tool("t1") + _tool("bad-name"),
            Code.DUPLICATE_TOOL_NAME,
            Code.PATTERN_MISMATCH,
        ),
        (
            AGENT + "tools:\n" + "".join(_tool(f"t{i}") for i in range(50)) + _tool("bad-name"),
            Code.TOO_MANY_ITEMS,
            Code.PATTERN_MISMATCH,
        ),
        (
            AGENT
            + "test_cases:\n"
            + "".join(f"  - input: q{i}\n" for i in range(1000))
            + ("  - input: 5\n"),
            Code.TOO_MANY_ITEMS,
            Code.WRONG_TYPE,
        ),
        (
            AGENT + "test_cases:\n  - input: x\n    files:\n" + TWELVE_FILES,
            Code.TOO_MANY_ITEMS,
            Code.INVALID_CHOICE,
        ),
        (
            HOT.replace("provider: openai", "provider: azure_openai"),
            Code.ENDPOINT_REQUIRED,
            Code.OUT_OF_RANGE,
        ),
    ],
    ids=[
        "HD140-with-bad-model",
        "HD140-with-bad-case",
        "HD151-with-bad-tool",
        "HD105-51-tools-with-bad-tool",
        "HD105-1001-cases-with-bad-case",
        "HD105-12-files-with-bad-file",
        "HD152-with-bad-temperature",
    ],
)
def test_cross_field_rule_is_reported_alongside_other_faults(
    check: Check, text: str, hidden: Code, other: Code
) -> None:
    codes = {d.code for d in check(text).diagnostics}
    assert other in codes
    assert hidden in codes


CONVFINQA = """\
name: "convfinqa-analyst"
description: "ConvFinQA dialogues as HoloDeck multi-turn test cases."
model:
  provider: openai
  name: "gpt-4o-mini"
  temperature: 0
instructions:
  inline: |
    You are a financial analyst answering questions about one page of an annual report.
    Use the lookup tool to read values and the arithmetic tools for every calculation.
tools:
  - name: "lookup"
    type: function
    description: "Look up a value in the filing page."
    file: "tools.py"
    function: "lookup"
  - name: "subtract"
    type: function
    description: "Return a minus b."
    file: "tools.py"
    function: "subtract"
  - name: "divide"
    type: function
    description: "Return a divided by b."
    file: "tools.py"
    function: "divide"
evaluations:
  metrics:
    - type: standard
      metric: numeric
      absolute_tolerance: 0.01
      accept_percent: true
test_cases:
  - name: "convfinqa-000-single-mro-2007-page-134-pdf-1"
    turns:
      - input: "what was the weighted average exercise price per share in 2007?"
        ground_truth: "60.94"
        expected_tools: [lookup]
      - input: "and what was it in 2005?"
        ground_truth: "25.14"
      - input: "what was, then, the change over the years?"
        ground_truth: "35.80"
        expected_tools:
          - name: "subtract"
            args:
              a:
                fuzzy: "60.94"
              b:
                fuzzy: "25.14"
        turn_config:
          turn_program: "subtract(60.94, 25.14)"
      - input: "and how much does that change represent in relation to the 2005 price?"
        ground_truth: "142.4%"
        expected_tools:
          - name: "subtract"
            args:
              a: 60.94
              b: {regex: "^25\\\\.14(0*)$"}
          - name: "divide"
            count: 1
            args:
              b:
                fuzzy: "25.14"
        turn_config:
          turn_program: "subtract(60.94, 25.14), divide(#0, 25.14)"
        evaluations:
          - type: code
            grader: "convfinqa_graders:turn_program_equivalence"
            threshold: 0.5
  - name: "legacy single turn"
    input: "What was the revenue in 2019?"
    ground_truth: "1,234"
    expected_tools: [lookup]
"""

CONVFINQA_TOOLS = """\
def lookup(query: str) -> str:
    return ""


def subtract(a: float, b: float) -> float:
    return a - b


def divide(a: float, b: float) -> float:
    return a / b
"""


def test_valid_convfinqa_style_file(check: Check, tmp_path: Path) -> None:
    (tmp_path / "tools.py").write_text(CONVFINQA_TOOLS, encoding="utf-8")
    (tmp_path / "convfinqa_graders.py").write_text(
        "def turn_program_equivalence(ctx):\n    return 1.0\n", encoding="utf-8"
    )
    result = check(CONVFINQA)
    clean(result)
    agent = result.agent
    assert agent is not None and agent.test_cases is not None
    multi, single = agent.test_cases
    assert multi.is_multi_turn and not single.is_multi_turn
    assert multi.turns is not None and len(multi.turns) == 4
    last = multi.turns[3]
    assert last.expected_tools is not None
    subtract, divide = last.expected_tools
    assert not isinstance(subtract, str) and not isinstance(divide, str)
    assert subtract.args is not None and divide.args is not None
    assert subtract.args["a"] == LiteralMatcher(60.94)
    b = subtract.args["b"]
    assert isinstance(b, RegexMatcher) and b.compiled.fullmatch("25.1400")
    assert divide.args["b"] == FuzzyMatcher("25.14")
    assert last.turn_config == {"turn_program": "subtract(60.94, 25.14), divide(#0, 25.14)"}


# --------------------------------------------------------------------------- resource limits

ALIAS_BOMB = (
    "name: bomb\n"
    "model: {provider: openai, name: m}\n"
    "instructions: {inline: x}\n"
    "response_format:\n"
    '  a: &a ["x","x","x","x","x","x","x","x","x","x"]\n'
    + "".join(
        f"  {name}: &{name} [{','.join([f'*{previous}'] * 10)}]\n"
        for previous, name in zip("abcdefgh", "bcdefghi", strict=True)
    )
)


def test_alias_bomb_is_cut_short(tmp_path: Path) -> None:
    agent = tmp_path / "agent.yaml"
    agent.write_text(ALIAS_BOMB, encoding="utf-8")
    script = textwrap.dedent(
        f"""
        from pathlib import Path
        from holodeck_lsp.checker.loader import LoadOptions, load_agent_text
        path = Path({str(agent)!r})
        result = load_agent_text(path.read_text(), path, LoadOptions(env={{}},
                                 home=path.parent / "home"))
        print(sorted({{d.code.value for d in result.diagnostics}}))
        """
    )
    try:
        done = subprocess.run(
            [sys.executable, "-c", script], capture_output=True, text=True, timeout=4
        )
    except subprocess.TimeoutExpired:
        pytest.fail("loading a billion-laughs file did not finish within 4 s")
    assert done.returncode == 0, done.stderr
    assert "HD003" in done.stdout
