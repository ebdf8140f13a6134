"""YAML text -> plain Python data (as HoloDeck's loader sees it) plus the node of every value.

ruamel.yaml's C-accelerated composer gives nodes with start/end marks (`yaml_compose`); we
build the Python values ourselves (`yaml_convert`: YAML 1.1 rules, merge keys, last duplicate
wins — PyYAML's behaviour) and keep the node tree so any validation error path can be turned
back into an exact range (`yaml_locate`). A text the parser rejects gets a message a person
understands (`yaml_syntax_errors`). Nothing here raises on bad input: problems are collected
with their ranges.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml.nodes import Node, SequenceNode

from holodeck_lsp.checker.diagnostics import Range, Severity
from holodeck_lsp.checker.gc_pause import gc_paused
from holodeck_lsp.checker.suite_locator import own_cases_sequence
from holodeck_lsp.checker.text_positions import YamlLines
from holodeck_lsp.checker.yaml_compose import Problem, compose, node_range
from holodeck_lsp.checker.yaml_convert import (
    ENV_REFERENCE,
    MAX_DEPTH,
    MAX_EXPANDED_NODES,
    Converter,
    Reused,
)
from holodeck_lsp.checker.yaml_locate import Located, first_key, key_node_for, locate
from holodeck_lsp.checker.yaml_nesting import NestingTooDeep
from holodeck_lsp.checker.yaml_scanner_rules import tab_problems
from holodeck_lsp.checker.yaml_syntax_errors import syntax_problem
from holodeck_lsp.schema.codes import Code

__all__ = [
    "ENV_REFERENCE",
    "MAX_DEPTH",
    "MAX_EXPANDED_NODES",
    "CaseItems",
    "Located",
    "Problem",
    "Reused",
    "YamlDocument",
    "compose",
    "document_of",
    "first_key",
    "key_node_for",
    "locate",
    "node_range",
    "parse_yaml",
]


@dataclass(frozen=True, slots=True)
class CaseItems:
    """The items of the top-level `test_cases:` sequence as converted, so that a later parse of
    an edited text can re-use each unchanged item's value and problems (`incremental_parse`)."""

    #: Position of the `test_cases` pair in the root mapping's entries.
    pair: int
    node: SequenceNode
    #: The converted list: item i's value at i.
    values: list[Any]
    #: Item i's problems are `YamlDocument.problems[start:stop]` for `spans[i] == (start, stop)`.
    spans: tuple[tuple[int, int], ...]


@dataclass(slots=True)
class YamlDocument:
    text: str
    root: Node | None
    value: Any
    problems: list[Problem] = field(default_factory=list)
    #: Ranges of values that use an unset ${VAR}: their real value is unknown here.
    unresolved: list[Range] = field(default_factory=list)
    #: The items of the root's `test_cases:` sequence, when it has one.
    cases: CaseItems | None = None


def parse_yaml(text: str, env: Mapping[str, str] | None = None) -> YamlDocument:
    """Compose `text` and convert it; never raises for bad input.

    `${VAR}` references are substituted from `env` (default: this process's environment),
    as HoloDeck does before parsing; an unset one is a warning, not an error, because the
    editor's environment is rarely the one the suite runs in.
    """
    environment = os.environ if env is None else env
    try:
        root = compose(text)
    except NestingTooDeep as error:
        where = Range.of(error.line, error.column, error.line, error.column + 1)
        return YamlDocument(
            text, None, None, [Problem(Code.TOO_DEEP, Severity.ERROR, str(error), where)]
        )
    except Exception as error:
        problem = syntax_problem(text, error)
        if problem is None:
            raise
        return YamlDocument(text, None, None, [problem])
    return document_of(text, root, environment)


def document_of(
    text: str,
    root: Node | None,
    env: Mapping[str, str],
    reused: Mapping[int, Reused] | None = None,
) -> YamlDocument:
    """The document of a composed `root`. `reused` maps `id()`s of `test_cases` item nodes
    to what converting them gave before (see `incremental_parse`): they are not converted
    again."""
    document = YamlDocument(text, root, None)
    _report_unset_variables(document, env)
    document.problems.extend(tab_problems(text, root))
    if root is not None:
        found = own_cases_sequence(root)
        converter = Converter(document, env, found[1] if found else None, reused or {})
        with gc_paused():
            document.value = converter.convert(root, 0)
        if found is not None and converter.case_values is not None:
            document.cases = CaseItems(
                found[0], found[1], converter.case_values, tuple(converter.case_spans)
            )
    return document


def _report_unset_variables(document: YamlDocument, env: Mapping[str, str]) -> None:
    if "${" not in document.text:
        return
    lines = YamlLines(document.text)
    for match in ENV_REFERENCE.finditer(document.text):
        name = match.group(1)
        if name not in env:
            start, end = lines.position(match.start()), lines.position(match.end())
            document.problems.append(
                Problem(
                    Code.ENV_VAR_UNSET,
                    Severity.WARNING,
                    f"environment variable {name} is not set here; HoloDeck refuses to "
                    f"load the file unless it is set where the suite runs "
                    f"(export {name}=... or add it to your CI secrets)",
                    Range(start, end),
                )
            )
