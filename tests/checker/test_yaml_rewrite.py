"""Text libyaml refuses but PyYAML reads (checker/yaml_rewrite.py): it composes, every position
stays where it is in the text, the values are PyYAML's, and a hostile text cannot make it
re-compose without bound."""

from __future__ import annotations

from typing import Any

import pytest
from ruamel.yaml.error import StreamMark
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode
from ruamel.yaml.scanner import ScannerError

from holodeck_lsp.checker.diagnostics import Severity
from holodeck_lsp.checker.yaml_compose import _compose_raw, compose
from holodeck_lsp.checker.yaml_document import parse_yaml
from holodeck_lsp.checker.yaml_rewrite import compose_as_pyyaml


def value_of(text: str) -> Any:
    document = parse_yaml(text, {})
    assert [p for p in document.problems if p.severity == Severity.ERROR] == []
    return document.value


def error_at(text: str) -> tuple[int, int, str]:
    document = parse_yaml(text, {})
    errors = [p for p in document.problems if p.severity == Severity.ERROR]
    assert len(errors) == 1, errors
    start = errors[0].range.start
    return start.line, start.character, errors[0].message


def test_a_url_in_a_flow_mapping_keeps_every_position() -> None:
    text = "model: {provider: ollama, endpoint: http://localhost:11434, name: llama3}\n"
    root = compose(text)
    assert isinstance(root, MappingNode)
    model = root.value[0][1]
    assert isinstance(model, MappingNode)
    for key, value in model.value:
        for node in (key, value):
            assert isinstance(node, ScalarNode)
            start = node.start_mark.index
            assert text[start : node.end_mark.index] == node.value
    assert value_of(text)["model"]["endpoint"] == "http://localhost:11434"


def test_colons_come_back_in_keys_lists_and_quoted_text() -> None:
    text = '{http://a.example: [urn:x:y, "q:r"], k: {"j":1}, plain: a:b}\n'
    assert value_of(text) == {"http://a.example": ["urn:x:y", "q:r"], "k": {"j": 1}, "plain": "a:b"}


def test_an_empty_value_after_a_key_in_a_flow_mapping_is_null() -> None:
    assert value_of("model: {provider: ollama, endpoint:,}\n") == {
        "model": {"provider": "ollama", "endpoint": None}
    }


def test_many_omitted_values_and_the_same_text_in_block_scalars_and_quotes() -> None:
    text = "a: {" + ", ".join(f"k{i}:" for i in range(300)) + "}\nx: a:,\ny: {c: 'q:,'}\n"
    assert value_of(text) == {
        "a": {f"k{i}": None for i in range(300)},
        "x": "a:,",
        "y": {"c": "q:,"},
    }


def test_a_second_colon_in_a_flow_entry_stays_an_error() -> None:
    assert error_at("a: {c: d x:,}\n")[:2] == (0, 10)


def test_a_tab_where_a_block_scalar_looks_for_its_indentation_is_content() -> None:
    assert value_of("a: |-\n \tbar\nb: |\n  \tx\n") == {"a": "\tbar", "b": "\tx\n"}


def test_many_urls_cost_one_more_compose_not_one_each() -> None:
    text = "urls: [" + ", ".join(f"http://h{i}.example:80/p" for i in range(300)) + "]\n"
    calls = 0

    def counting(source: str) -> Node | None:
        nonlocal calls
        calls += 1
        return _compose_raw(source)

    root = compose_as_pyyaml(text, counting)
    assert root is not None and calls == 2


def test_many_tab_led_block_scalars_cost_one_more_compose() -> None:
    text = "".join(f"k{i}: |\n  \tline {i}\n" for i in range(200))
    calls = 0

    def counting(source: str) -> Node | None:
        nonlocal calls
        calls += 1
        return _compose_raw(source)

    compose_as_pyyaml(text, counting)
    assert calls == 2
    assert value_of(text)["k199"] == "\tline 199\n"


def test_a_leading_tab_outside_a_block_scalar_stays_an_error() -> None:
    text = "a: |\n  \tx\nb:\n\t- c\n"
    line, column, _ = error_at(text)
    assert (line, column) == (3, 0)


def test_refusals_that_need_one_compose_each_stop_after_a_bound() -> None:
    # A parser that refuses every remaining `:` after an alias, one at a time (aliases are
    # never swapped in bulk): the loop gives up after its bound and raises.
    text = "b: [" + ", ".join(["*a:b"] * 200) + "]\n"
    calls = 0

    def refusing(source: str) -> Node | None:
        nonlocal calls
        calls += 1
        at = source.index(":", 3)
        mark = StreamMark("<text>", at, 0, at)
        raise ScannerError("while scanning a plain scalar", mark, "found unexpected ':'", mark)

    with pytest.raises(ScannerError):
        compose_as_pyyaml(text, refusing)
    assert calls == 65


def test_private_use_characters_of_the_text_are_kept() -> None:
    used = "".join(chr(code) for code in range(0xE000, 0xE010))
    assert value_of(f"x: {used}\ny: {{u: http://a}}\nz: |\n  \tt\n") == {
        "x": used,
        "y": {"u": "http://a"},
        "z": "\tt\n",
    }


@pytest.mark.parametrize(
    ("text", "value"),
    [
        ("%FOO bar baz # ignored\n---\na: 1\n", {"a": 1}),
        ("%FOO bar\tbaz\n---\na: 1\n", {"a": 1}),
        ("%YAML 1.3\n---\na: 1\n", {"a": 1}),
        ("%YAML 1.12 # a comment\n---\na: 1\n", {"a": 1}),
        ("\ufeff%FOO\n---\na: 1\n", {"a": 1}),
        ("%YAML 1.1\n%TAG !e! tag:example.com,2000:\n---\na: !!str 1\n", {"a": "1"}),
        ("a\n%b\n", "a %b"),  # inside the document a `%` is text
    ],
)
def test_directives_pyyaml_reads(text: str, value: Any) -> None:
    assert value_of(text) == value


@pytest.mark.parametrize(
    ("text", "where", "words"),
    [
        ("%FOO bar\na: 1\n", (1, 0), "expected '<document start>'"),
        # PyYAML names the end of the text; we show it on the last character.
        ("%FOO bar\n", (0, 7), "expected '<document start>'"),
        ("%YAML 1.1#x\n---\na: 1\n", (0, 9), "expected a digit or ' '"),
        ("%YAML 1.1 x\n---\na: 1\n", (0, 10), "expected a comment or a line break"),
        ("%YAML\t1.1\n---\na: 1\n", (0, 5), "expected alphabetic or numeric character"),
        ("% x\n---\na: 1\n", (0, 1), "expected alphabetic or numeric character"),
        ("%YAML 2.0\n---\na: 1\n", (0, 0), "incompatible"),
    ],
)
def test_directives_pyyaml_refuses(text: str, where: tuple[int, int], words: str) -> None:
    line, column, message = error_at(text)
    assert (line, column) == where and words in message
