"""Where a suite's parts are written (server/runs/run_locations.py): a pure function of the
composed YAML node tree, read here from real YAML text."""

from __future__ import annotations

from holodeck_lsp.checker.yaml_document import compose
from holodeck_lsp.server.runs.run_locations import case_texts, locate_suite

AGENT = """\
name: a
evaluations:
  metrics:
    - type: standard
      metric: numeric
test_cases:
  - name: two-turns
    evaluations:
      - type: code
        grader: graders:exact
    turns:
      - input: "q0"
        ground_truth: "10"
      - input: "q1"
        expected_tools:
          - name: subtract
            args:
              a: 10
              b: 5
  - name: single
    input: "q2"
    ground_truth: "7"
"""


def test_cases_turns_and_failure_lines() -> None:
    suite = locate_suite(compose(AGENT))
    assert suite is not None
    assert suite.key == (5, 0)  # `test_cases:`
    assert suite.metrics == {"numeric": ((3, 6), (3, 1006))}
    first, second = suite.cases
    assert (first.index, first.name, first.start) == (0, "two-turns", (6, 4))
    assert (second.index, second.name, second.start) == (1, "single", (19, 4))
    turn0, turn1 = first.turns
    assert (turn0.start, turn0.input) == ((11, 8), ((11, 8), (11, 19)))
    assert turn0.ground_truth == ((12, 8), (12, 26))
    assert turn1.ground_truth is None
    [tool] = turn1.tools
    assert turn1.start == (13, 8)
    assert tool.span[0] == (15, 12)
    assert tool.args == {"a": ((17, 14), (17, 19)), "b": ((18, 14), (18, 18))}
    # A grader entry is found by its path and by its callable's name (how results name it).
    assert turn0.metrics["graders:exact"] == turn0.metrics["exact"] == ((8, 8), (8, 1008))
    # A single-turn case is its own turn 0, from the case's first line to its end.
    [single] = second.turns
    assert (single.index, single.start, single.end) == (0, (19, 4), second.end)
    assert single.input == ((20, 4), (20, 15))


def test_case_text_is_the_cases_own_text() -> None:
    suite = locate_suite(compose(AGENT))
    assert suite is not None
    text = suite.case_text(AGENT, 1)
    assert text is not None and text.startswith("name: single") and '"7"' in text
    assert suite.case_text(AGENT, 5) is None
    assert case_texts(compose(AGENT), AGENT) == {
        0: suite.case_text(AGENT, 0),
        1: suite.case_text(AGENT, 1),
    }


def test_only_locates_the_cases_asked_for() -> None:
    suite = locate_suite(compose(AGENT), only={1})
    assert suite is not None
    assert [case.index for case in suite.cases] == [1]


def test_an_include_is_a_list_of_cases() -> None:
    include = '- name: one\n  input: "x"\n- not a case\n- name: three\n  input: "y"\n'
    suite = locate_suite(compose(include))
    assert suite is not None
    assert suite.key == (0, 0)
    assert [(case.index, case.name) for case in suite.cases] == [(0, "one"), (2, "three")]


def test_the_last_duplicate_key_wins_as_in_the_loader() -> None:
    text = 'test_cases:\n  - input: "old"\ntest_cases:\n  - name: new\n    input: "new"\n'
    suite = locate_suite(compose(text))
    assert suite is not None
    assert suite.key == (2, 0)
    [case] = suite.cases
    assert case.name == "new"


def test_files_without_cases_have_no_suite() -> None:
    assert locate_suite(compose("name: a\nmodel: {}\n")) is None
    assert locate_suite(None) is None
