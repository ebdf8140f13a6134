"""The incremental parse of an edited agent.yaml equals a full parse of the new text: the same
values, problems (with their ranges and messages), per-case bookkeeping and node tree (every
node's kind, tag, style and marks), whether it re-used the previous parse or fell back.

Unit cases pin down which edits are re-parsed incrementally and which fall back; a
hypothesis property applies random edits (and chains of them, each parsed from the previous
incremental result) to a small multi-case file.
"""

from __future__ import annotations

import os
import textwrap
import threading
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.checker.incremental_parse import parse_edited, reparse
from holodeck_lsp.checker.node_shift import moved
from holodeck_lsp.checker.text_diff import changed_span
from holodeck_lsp.checker.yaml_document import YamlDocument, locate, node_range, parse_yaml
from holodeck_lsp.schema.codes import Code

AGENT = textwrap.dedent(
    """\
    name: "incremental"
    model:
      provider: openai
      name: gpt-4o-mini
    instructions:
      inline: |
        Be brief.
    tools:
      - name: subtract
        type: function
        file: tools.py
        function: subtract
    test_cases:
      - name: "first"
        turns:
          - input: "what was it in 2007?"
            ground_truth: "60.94"
          - input: "and in 2005?"
            ground_truth: "25.14"
            expected_tools:
              - name: subtract
                args:
                  a: {fuzzy: "60.94"}
                  b: 25.14
      # a comment between cases
      - name: second
        input: one line
        input: duplicated
        ground_truth: 2001-02-30

      - name: third
        turns:
          - input: |+
              kept

            ground_truth: '42'
      - name: fourth
        input: "multi
          line"
        ground_truth: !!str 7
        expected_tools: [subtract, {name: subtract, count: 2}]
    execution:
      parallel_test_cases: 2
    """
)
#: The same cases at the end of the file (nothing after the sequence).
AGENT_CASES_LAST = AGENT[: AGENT.index("execution:")]
#: Odd but valid YAML in and between the cases.
ODD = textwrap.dedent(
    """\
    # leading comment
    name: odd
    test_cases:
      - name: a
        turns:
          - input: |+
              keep


            ground_truth: >-
              folded
              text
          - input: 'single ''quoted''
              continued'
            expected_tools: [x, {name: y, args: {a: 1}}]
      # comment at 2
      -   name: b
          input: plain
            continuation
          ground_truth: !!str 12
      -
        name: c
        input: null-dash-line
      - - nested
        - seq
      - just a scalar
      - name: d
        input: "dq \\
          escaped"
    # comment at 0

      - name: e
        input: |
          last
        x: 2001-02-30
        x: 3
    other: 1
    """
)
BASES = st.sampled_from([AGENT, AGENT_CASES_LAST, ODD, ODD.replace("\n", "\r\n")])

# -- comparing documents -----------------------------------------------------------------------


def tree(node: Node | None) -> Any:
    """Everything about a node tree that a consumer can see."""
    if node is None:
        return None
    marks = tuple((m.index, m.line, m.column) for m in (node.start_mark, node.end_mark))
    if isinstance(node, ScalarNode):
        return ("scalar", str(node.tag), marks, node.value, node.style)
    if isinstance(node, MappingNode):
        entries = [(tree(key), tree(value)) for key, value in node.value]
        return ("mapping", str(node.tag), marks, node.flow_style, entries)
    assert isinstance(node, SequenceNode)
    items = [tree(item) for item in node.value]
    return ("sequence", str(node.tag), marks, node.flow_style, items)


def assert_same(document: YamlDocument, full: YamlDocument) -> None:
    assert document.text == full.text
    assert document.value == full.value
    assert document.problems == full.problems
    assert document.unresolved == full.unresolved
    assert tree(document.root) == tree(full.root)
    assert (document.cases is None) == (full.cases is None)
    if document.cases is not None and full.cases is not None:
        assert document.cases.pair == full.cases.pair
        assert document.cases.spans == full.cases.spans
        assert document.cases.values == full.cases.values
        assert isinstance(document.root, MappingNode)
        assert document.cases.node is document.root.value[document.cases.pair][1]


def edited(old: str, new: str, previous: YamlDocument | None = None) -> YamlDocument | None:
    """Parse `new` from (a parse of) `old`; check it against a full parse. The incremental
    result, or None when it fell back to a full parse."""
    previous = previous if previous is not None else parse_yaml(old, {})
    document = reparse(new, previous)
    full = parse_yaml(new, {})
    assert_same(parse_edited(new, previous, {}), full)
    if document is not None:
        assert_same(document, full)
    return document


def replace(text: str, old: str, new: str) -> str:
    assert text.count(old) == 1, old
    return text.replace(old, new)


# -- edits that are re-parsed incrementally ----------------------------------------------------


def test_a_key_added_in_a_turn() -> None:
    new = replace(AGENT, '"and in 2005?"\n', '"and in 2005?"\n        unknown_key: "x"\n')
    assert edited(AGENT, new) is not None
    assert edited(new, AGENT) is not None


def test_lines_added_and_removed_in_a_case() -> None:
    new = replace(AGENT, "    input: one line\n", "    input: one line\n    files: []\n\n")
    assert edited(AGENT, new) is not None
    shorter = replace(AGENT, '        ground_truth: "60.94"\n', "")
    assert edited(AGENT, shorter) is not None


def test_an_edit_inside_a_scalar() -> None:
    same_length = replace(AGENT, '"what was it in 2007?"', '"what was it in 2008?"')
    assert edited(AGENT, same_length) is not None
    longer = replace(AGENT, "input: one line", "input: one much longer line")
    assert edited(AGENT, longer) is not None
    into_block = replace(AGENT, "          kept\n", "          kept\n          more\n")
    assert edited(AGENT, into_block) is not None


def test_a_case_added_removed_or_split() -> None:
    added = replace(AGENT, "  - name: third\n", "  - name: new\n    input: hi\n  - name: third\n")
    assert edited(AGENT, added) is not None
    start, end = AGENT.index("  - name: second"), AGENT.index("  - name: third")
    assert edited(AGENT, AGENT[:start] + AGENT[end:]) is not None
    split = replace(AGENT, "    input: duplicated\n", "  - input: duplicated\n")
    assert edited(AGENT, split) is not None


def test_edits_of_the_last_case() -> None:
    for text in (AGENT, AGENT_CASES_LAST):
        new = replace(text, "ground_truth: !!str 7", "ground_truth: '8'\n    evaluations: []")
        assert edited(text, new) is not None
    appended = AGENT_CASES_LAST + "  - name: fifth\n    input: hello\n"
    assert edited(AGENT_CASES_LAST, appended) is not None


def test_an_indentless_sequence_and_crlf_lines() -> None:
    head, cases = AGENT_CASES_LAST.split("test_cases:\n")
    indentless = head + "test_cases:\n" + textwrap.dedent(cases)
    assert "\n- name: second" in indentless
    new = replace(indentless, "input: one line", "input: two lines\n  files: []")
    assert edited(indentless, new) is not None
    crlf = AGENT.replace("\n", "\r\n")
    new = replace(crlf, "input: one line\r\n", "input: one line\r\n    files: []\r\n")
    assert edited(crlf, new) is not None


def test_line_breaks_only_yaml_counts_in_the_previous_text() -> None:
    """The parser counts a lone CR (or NEL, LS, PS) as a line break: edited away, the cases
    after it move up by the parser's count, not by the number of LFs."""
    for odd in ("\r", "\x85", "\u2028"):
        old = replace(AGENT, "    input: one line\n", f"    input: one line\n    # a{odd}#b\n")
        new = replace(old, f"    # a{odd}#b\n", "    # ab\n")
        assert edited(old, new) is not None


def test_problems_move_with_their_case() -> None:
    """A duplicate key's message names the first key's line: it follows the case."""
    new = replace(AGENT, '        ground_truth: "60.94"\n', '        ground_truth: "60.94"\n\n\n')
    document = edited(AGENT, new)
    assert document is not None
    codes = [problem.code for problem in document.problems]
    assert codes == [Code.DUPLICATE_KEY, Code.INVALID_VALUE]
    first_line = new[: new.index("input: one line")].count("\n") + 1
    assert f"first at line {first_line})" in document.problems[0].message
    assert document.cases is not None
    assert document.cases.spans[1] == (0, 2)


def test_an_edit_that_adds_a_problem() -> None:
    new = replace(AGENT, "ground_truth: '42'", "ground_truth: '42'\n        ground_truth: 43")
    document = edited(AGENT, new)
    assert document is not None
    assert [p.code for p in document.problems].count(Code.DUPLICATE_KEY) == 2


def test_chained_edits_from_incremental_results() -> None:
    text, document = AGENT, parse_yaml(AGENT, {})
    for old, new in (
        ('"first"', '"first case"'),
        ("input: one line", "input: one line\n    files: []"),
        ("name: third", "name: third\n    evaluations: []"),
        ("\n    files: []", ""),
        ('"first case"', '"1st"'),
    ):
        changed = replace(text, old, new)
        result = edited(text, changed, document)
        assert result is not None
        text, document = changed, result
    assert_same(document, parse_yaml(text, {}))


# -- edits that fall back to a full parse (and still give the same result) ---------------------


def test_edits_outside_the_cases_fall_back() -> None:
    assert edited(AGENT, replace(AGENT, '"incremental"', '"renamed"')) is None
    assert edited(AGENT, replace(AGENT, "parallel_test_cases: 2", "parallel_test_cases: 3")) is None
    assert edited(AGENT, replace(AGENT, "test_cases:\n", "test_cases:  # cases\n")) is None


def test_syntax_errors_fall_back() -> None:
    unclosed = replace(AGENT, "input: one line", 'input: "one line')
    assert edited(AGENT, unclosed) is None
    assert parse_yaml(unclosed, {}).root is None
    bad_indent = replace(AGENT, "    input: one line", "  input: one line")
    assert edited(AGENT, bad_indent) is None
    assert edited(AGENT, replace(AGENT, "  - name: third", "- name: third")) is None


def test_anchors_variables_and_merge_keys_fall_back() -> None:
    anchored = replace(AGENT_CASES_LAST, '  - name: "first"', '  - &first\n    name: "first"')
    assert edited(AGENT_CASES_LAST, anchored) is None
    aliased = anchored + "  - *first\n"
    assert edited(anchored, aliased) is None
    assert parse_yaml(aliased, {}).value["test_cases"][-1]["name"] == "first"
    variable = replace(AGENT, "input: one line", "input: ${QUESTION}")
    assert edited(AGENT, variable) is None
    merged = replace(AGENT, "input: one line", "<<: {input: one line}")
    assert edited(AGENT, merged) is None


def test_a_previous_parse_with_errors_is_not_reused() -> None:
    broken = replace(AGENT, "input: one line", 'input: "one line')
    assert edited(broken, AGENT) is None


# -- the previous version ----------------------------------------------------------------------


def test_the_previous_tree_is_left_as_it_was() -> None:
    previous = parse_yaml(AGENT, {})
    before = tree(previous.root)
    new = replace(AGENT, "name: third", "name: third\n    evaluations: []")
    document = reparse(new, previous)
    assert document is not None and previous.root is not None and document.root is not None
    tree(document.root)  # copies every moved case
    assert tree(previous.root) == before
    # A case before the edit is shared, a moved one is a copy.
    first = locate(document.root, ("test_cases", 0)).node
    assert first is locate(previous.root, ("test_cases", 0)).node
    fourth = locate(document.root, ("test_cases", 3, "name")).node
    old_fourth = locate(previous.root, ("test_cases", 3, "name")).node
    assert node_range(fourth).start.line == node_range(old_fourth).start.line + 1


def test_a_moved_case_is_copied_once_across_threads() -> None:
    previous = parse_yaml(AGENT, {})
    assert previous.root is not None
    case = locate(previous.root, ("test_cases", 1)).node
    copy = moved(moved(case, 2, 10), 1, 5)  # moved twice before use: one copy
    seen: list[Any] = []
    threads = [threading.Thread(target=lambda: seen.append(copy.value)) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert all(entries is seen[0] for entries in seen)
    assert tree(copy)[2] == tuple(
        (m.index + 15, m.line + 3, m.column) for m in (case.start_mark, case.end_mark)
    )
    assert [tree(k)[2] for k, _ in seen[0]] == [
        tuple((m.index + 15, m.line + 3, m.column) for m in (k.start_mark, k.end_mark))
        for k, _ in case.value
    ]


# -- random edits ------------------------------------------------------------------------------

#: HOLODECK_FUZZ_EXAMPLES=5000 runs a longer, randomly seeded session.
_EXAMPLES = os.environ.get("HOLODECK_FUZZ_EXAMPLES")
PROPERTY = settings(
    max_examples=int(_EXAMPLES or 300),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
    derandomize=_EXAMPLES is None,
    database=None,
)
#: Pieces that change YAML structure, mixed with plain characters.
SNIPPETS = st.sampled_from(
    [
        "\n",
        "\n  - ",
        "\n    ",
        "- ",
        "  ",
        " ",
        ":",
        ": ",
        '"',
        "'",
        "#",
        "x",
        "name: a\n",
        "    input: b\n",
        "  - name: c\n    input: d\n",
        "|\n",
        "[",
        "]",
        "{",
        "}",
        ",",
        "!!int ",
        "2001-02-30",
        "&a ",
        "*a",
        "\t",
        "...\n",
        "---\n",
        "?",
        "\r",
        "\r\n",
        "\x85",
    ]
)
#: Whole lines, to keep many edited texts valid YAML.
LINES = st.sampled_from(
    [
        "",
        "  - name: n",
        "    input: i",
        "      - input: t",
        "        ground_truth: g",
        "    turns:",
        "  -",
        "#c",
        "    # c4",
        "  - x",
        "    k: [1, 2]",
        "    k: {a: b}",
        "    - z",
        "   bad: 1",
        "other2: 3",
        "...",
        "  - |",
        "      block",
        "    'q': v",
    ]
)


@st.composite
def edits(draw: st.DrawFn, text: str) -> str:
    """`text` with one random insertion, deletion or replacement."""
    start = draw(st.integers(0, len(text)))
    end = draw(st.integers(start, min(len(text), start + 40)))
    kind = draw(st.sampled_from(["insert", "delete", "replace"]))
    inserted = "" if kind == "delete" else "".join(draw(st.lists(SNIPPETS, min_size=1, max_size=4)))
    if kind == "insert":
        end = start
    return text[:start] + inserted + text[end:]


@st.composite
def line_edits(draw: st.DrawFn, text: str) -> str:
    """`text` with a line inserted, deleted or duplicated, or a few characters of one changed."""
    lines = text.split("\n")
    at = draw(st.integers(0, len(lines) - 1))
    kind = draw(st.sampled_from(["insert", "delete", "duplicate", "change"]))
    if kind == "insert":
        lines.insert(at, draw(LINES))
    elif kind == "delete":
        del lines[at : at + draw(st.integers(1, 3))]
    elif kind == "duplicate":
        lines.insert(at, lines[draw(st.integers(0, len(lines) - 1))])
    else:
        line = lines[at]
        start = draw(st.integers(0, len(line)))
        end = draw(st.integers(start, min(len(line), start + 5)))
        lines[at] = line[:start] + draw(SNIPPETS) + line[end:]
    return "\n".join(lines)


def any_edit(text: str) -> st.SearchStrategy[str]:
    return st.one_of(edits(text), line_edits(text))


@PROPERTY
@given(st.data())
def test_random_edits_parse_as_in_full(data: st.DataObject) -> None:
    base = data.draw(BASES)
    new = data.draw(any_edit(base))
    edited(base, new)


@PROPERTY
@given(st.data())
def test_random_edit_chains_parse_as_in_full(data: st.DataObject) -> None:
    text = data.draw(BASES)
    document = parse_yaml(text, {})
    for _ in range(data.draw(st.integers(2, 6))):
        new = data.draw(any_edit(text))
        document = parse_edited(new, document, {})
        assert_same(document, parse_yaml(new, {}))
        text = new


@PROPERTY
@given(st.data())
def test_edits_removing_odd_line_breaks_parse_as_in_full(data: st.DataObject) -> None:
    """A previous text may have line breaks the new one has not (the parser counts them)."""
    text = data.draw(BASES)
    at = data.draw(st.integers(text.index("test_cases:"), len(text)))
    odd = data.draw(st.sampled_from(["\r", "\x85", "\u2028", "\u2029"]))
    old = text[:at] + odd + text[at:]
    document = parse_yaml(old, {})
    new = old[:at] + data.draw(st.sampled_from(["", "\n", " ", "x"])) + old[at + 1 :]
    assert_same(parse_edited(new, document, {}), parse_yaml(new, {}))


def test_most_small_edits_in_cases_are_incremental() -> None:
    """The property above must exercise the incremental path, not only the fall-back."""
    start = AGENT.index("  - name: second")
    hits = 0
    for offset in range(start, start + 60):
        if edited(AGENT, AGENT[:offset] + "x" + AGENT[offset:]) is not None:
            hits += 1
    assert hits >= 40


# -- the changed span --------------------------------------------------------------------------


@PROPERTY
@given(st.text("ab\n", max_size=60), st.text("ab\n", max_size=60), st.text("ab\n", max_size=60))
def test_changed_span(prefix: str, middle: str, suffix: str) -> None:
    old = prefix + suffix
    new = prefix + middle + suffix
    change = changed_span(old, new)
    if old == new:
        assert change is None
        return
    assert change is not None
    assert old[: change.start] == new[: change.start]
    assert old[change.old_end :] == new[change.new_end :]
    assert len(old) - change.old_end == len(new) - change.new_end
    assert change.start <= change.old_end and change.start <= change.new_end
    # The common prefix is as long as it can be.
    if change.start < min(len(old), len(new)):
        assert old[change.start] != new[change.start]
    long_old = "x" * 200_000 + old + "y" * 300_000
    long_new = "x" * 200_000 + new + "y" * 300_000
    long_change = changed_span(long_old, long_new)
    assert long_change is not None
    assert long_change.start == change.start + 200_000
    assert long_change.old_end == change.old_end + 200_000
