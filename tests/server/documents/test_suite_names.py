"""suite_names and token_spans on real composed YAML: where tool and case names are written
(quotes excluded, escapes skipped), HoloDeck's substring rule, and that a `${VAR}` name is its
text as written — never the variable's value (what references, rename and workspace symbols
send to the editor)."""

from __future__ import annotations

import pytest

from holodeck_lsp.checker.yaml_document import compose, parse_yaml
from holodeck_lsp.server.documents.name_kinds import NameKind
from holodeck_lsp.server.documents.suite_names import matches_tool, suite_names
from holodeck_lsp.server.documents.token_legend import TOKEN_TYPES
from holodeck_lsp.server.documents.token_spans import token_spans

AGENT = """\
tools:
  - name: "subtract"
    type: function
test_cases:
  - name: 'first'
    expected_tools: [subtract, "sub\\u0074ract"]
    turns:
      - input: x
        expected_tools:
          - name: sub
            args: {a: {fuzzy: "1"}}
        ground_truth: "subtract(1, 2), divide(#0, 3)"
  - name: ${PLANTED_CASE_NAME}
    input: y
evaluations:
  metrics:
    - {type: standard, metric: numeric}
    - {type: code, grader: "graders:exact"}
"""


def test_names_are_found_where_written() -> None:
    lines = AGENT.split("\n")
    names = suite_names(compose(AGENT))
    found = [(n.kind, n.text, lines[n.line][n.start : n.end]) for n in names]
    assert found == [
        (NameKind.TOOL, "subtract", "subtract"),
        (NameKind.CASE, "first", "first"),
        (NameKind.EXPECTED_TOOL, "subtract", "subtract"),
        # "sub\u0074ract" is written longer than its text: not a span to edit, left out.
        (NameKind.EXPECTED_TOOL, "sub", "sub"),
        (NameKind.CASE, "${PLANTED_CASE_NAME}", "${PLANTED_CASE_NAME}"),
    ]
    assert matches_tool("sub", "subtract") and not matches_tool("", "subtract")


def test_a_variable_name_stays_as_written(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("PLANTED_CASE_NAME", "planted-secret-value")
    document = parse_yaml(AGENT)  # the checker's parse: values substituted, nodes not
    assert document.value["test_cases"][1]["name"] == "planted-secret-value"
    texts = [n.text for n in suite_names(document.root)]
    assert "${PLANTED_CASE_NAME}" in texts
    assert not any("planted-secret-value" in text for text in texts)


def test_token_spans() -> None:
    lines = AGENT.split("\n")
    spans = token_spans(compose(AGENT))
    found = [
        (lines[line][start : start + length], TOKEN_TYPES[kind])
        for line, start, length, kind, _ in spans
    ]
    assert ("fuzzy", "type") in found
    assert ("#0", "variable") in found
    assert ("numeric", "enumMember") in found
    assert ("graders", "namespace") in found and ("exact", "function") in found
    assert found.count(("subtract", "function")) == 2  # declared + expected
    assert ("sub", "function") in found
