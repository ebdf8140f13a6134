"""Explicit tags as PyYAML's safe loader constructs them (checker/yaml_tags.py, yaml_convert):
the same values where it loads, HD001 at the tag where it raises — checked against PyYAML."""

from __future__ import annotations

from typing import Any

import pytest
import yaml

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.yaml_document import parse_yaml
from holodeck_lsp.schema.codes import Code


@pytest.mark.parametrize(
    "text",
    [
        "a: ! 12",
        "a: ! '12'",
        'a: ! "yes"',
        "a: ! [1, 2]",
        "a: &x !!int '7'",
        "a: !!str 12",
        "a: !<tag:yaml.org,2002:str> 12",
        "a: !!binary aGVsbG8=",
        "a: !!binary |\n  aGVs\n  bG8=\n",
        "a: !!set {x, y}",
        "a: !!omap [x: 1, y: 2]",
        "a: !!pairs\n  - x: 1\n  - x: 2\n",
        "a: !!seq [1]",
        "a: !!map {b: 1}",
        "a: !!float '1'",
        "a: !!null ''",
        "a: !!timestamp 2026-12-06",
    ],
)
def test_values_as_pyyaml_builds_them(text: str) -> None:
    document = parse_yaml(text, {})
    assert [p for p in document.problems if p.severity == Severity.ERROR] == []
    expected: Any = yaml.safe_load(text)
    assert document.value == expected
    assert type(document.value["a"]) is type(expected["a"])


@pytest.mark.parametrize(
    ("text", "tag"),
    [
        ("--- !agent\nname: x\n", "!agent"),
        ("--- !<tag:example.com,2026:agent>\nname: x\n", "!<tag:example.com,2026:agent>"),
        ("model: !!python/object:builtins.dict\n  a: 1\n", "!!python/object:builtins.dict"),
        ("cases: !!python/object/apply:os.system [echo]\n", "!!python/object/apply:os.system"),
        ("input: !!python/name:os.system\n", "!!python/name:os.system"),
        ("input: !include other.yaml\n", "!include"),
        ("input: !!str [a]\n", "!!str"),
        ("model: !!map [a]\n", "!!map"),
        ("model: !!seq {a: 1}\n", "!!seq"),
        ("model: !!set [a]\n", "!!set"),
        ("model: !!omap {a: 1}\n", "!!omap"),
        ("input: !!seq x\n", "!!seq"),
        ("input: !!merge x\n", "!!merge"),
    ],
)
def test_an_error_at_the_tag_where_pyyaml_raises(text: str, tag: str) -> None:
    with pytest.raises(yaml.constructor.ConstructorError) as raised:
        yaml.safe_load(text)
    mark = raised.value.problem_mark or raised.value.context_mark
    assert mark is not None
    errors = [p for p in parse_yaml(text, {}).problems if p.code == Code.YAML_SYNTAX]
    assert len(errors) == 1, errors
    where = errors[0].range
    assert (where.start.line, where.start.character) == (mark.line, mark.column)
    assert where.end.character - where.start.character == len(tag)
    assert f"refuses the tag {tag!r}" in errors[0].message


def test_an_omap_item_that_is_not_a_pair_is_an_error_at_the_item() -> None:
    text = "model: !!omap [a: 1, b]\n"
    with pytest.raises(yaml.constructor.ConstructorError) as raised:
        yaml.safe_load(text)
    mark = raised.value.problem_mark
    assert mark is not None
    errors = [p for p in parse_yaml(text, {}).problems if p.severity == Severity.ERROR]
    assert [(e.range.start.line, e.range.start.character) for e in errors] == [
        (mark.line, mark.column)
    ]
    assert "one key" in errors[0].message


def test_no_tag_runs_code(tmp_path: Any) -> None:
    marker = tmp_path / "ran"
    text = f"a: !!python/object/apply:os.system ['touch {marker}']\n"
    parse_yaml(text, {})
    assert not marker.exists()


def test_bad_base64_is_an_invalid_value() -> None:
    text = "a: !!binary aGVsbG8\n"
    with pytest.raises(yaml.constructor.ConstructorError):
        yaml.safe_load(text)
    problems = parse_yaml(text, {}).problems
    assert [p.code for p in problems] == [Code.INVALID_VALUE]
