"""What PyYAML refuses although libyaml reads it (checker/yaml_scanner_rules.py): tabs outside
quoted strings, block scalars and comments, and block scalar headers, at the place PyYAML
names — checked against PyYAML itself."""

from __future__ import annotations

import pytest
import yaml

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.yaml_document import parse_yaml
from holodeck_lsp.schema.codes import Code


def errors(text: str) -> list[tuple[int, int, str]]:
    return [
        (p.range.start.line, p.range.start.character, p.message)
        for p in parse_yaml(text, {}).problems
        if p.severity == Severity.ERROR
    ]


def pyyaml_mark(text: str) -> tuple[int, int] | None:
    try:
        yaml.safe_load(text)
    except yaml.MarkedYAMLError as error:
        assert error.problem_mark is not None
        return error.problem_mark.line, error.problem_mark.column
    return None


@pytest.mark.parametrize(
    "text",
    [
        "name: probe\t\n",
        "name: probe\t# why\n",
        "name:\tprobe\n",
        "model: {provider: ollama,\tname: llama3}\n",
        "a: [b,\tc]\n",
        "a: 1\n\t\nb: 2\n",
        "---\tscalar\n",
        "name: pro\tbe\n",
        "key:\n  value\n  \tmore\n",
        "a: !!str\t|\n  x\n",
        'a: !!str\t"x"\n',
        "a: &anchor\tx\n",
        "block:\t|\n  x\n",
        "inline: >#comment\n  x\n",
        "inline: |\t\n  x\n",
        "inline: |2-x\n  x\n",
        "inline: | \t# c\n  x\n",
    ],
)
def test_an_error_where_pyyaml_stops(text: str) -> None:
    mark = pyyaml_mark(text)
    assert mark is not None, "PyYAML reads it: not a probe of this rule"
    found = errors(text)
    assert found and found[0][:2] == mark, found


@pytest.mark.parametrize(
    "text",
    [
        "name: probe # a\tcomment\n",
        "# c\t\nname: x\n",
        'name: "tab\tinside"\n',
        "name: 'tab\tinside'\n",
        "name: |\n  a\n  \tb\n",
        "name: >\n  a\n  \tb\n  c\n",
        "a: [b, c]#\tcomment right after a flow end\n",
        'a: "q"#\tcomment right after a quote\n',
        "%FOO bar\tbaz\n---\na: 1\n",
        "inline: |2- # comment\n    x\n",
        "inline: >+\n  x\n",
    ],
)
def test_no_error_where_pyyaml_reads(text: str) -> None:
    assert pyyaml_mark(text) is None
    assert errors(text) == []


def test_one_error_per_line_and_no_more_than_fifty() -> None:
    text = "".join(f"k{i}: v\t\t\n" for i in range(80))
    found = parse_yaml(text, {}).problems
    assert len(found) == 50
    assert [p.range.start.line for p in found] == list(range(50))
    assert {p.code for p in found} == {Code.YAML_SYNTAX}


def test_the_tree_and_values_stay_for_the_other_checks() -> None:
    document = parse_yaml("name: probe\t\nmodel: {provider: x}\n", {})
    assert document.value == {"name": "probe", "model": {"provider": "x"}}
