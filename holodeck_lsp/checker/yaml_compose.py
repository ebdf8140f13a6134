"""Composing YAML text into a node tree with positions (ruamel.yaml's C composer).

The tree keeps every value's start/end marks; values are built from it by `yaml_convert`
(YAML 1.1 rules, as HoloDeck's PyYAML loader reads them), paths are found in it by
`yaml_locate`.
"""

from __future__ import annotations

import threading
import warnings
from dataclasses import dataclass
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.nodes import Node, ScalarNode, SequenceNode
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.tag import Tag

from holodeck_lsp.checker.diagnostics import Range, Severity
from holodeck_lsp.checker.gc_pause import gc_paused
from holodeck_lsp.checker.suite_locator import MERGE_TAG
from holodeck_lsp.checker.yaml_nesting import check_nesting
from holodeck_lsp.checker.yaml_rewrite import compose_as_pyyaml
from holodeck_lsp.schema.codes import Code


@dataclass(frozen=True, slots=True)
class Problem:
    """A fault found while reading the YAML itself."""

    code: Code
    severity: Severity
    message: str
    range: Range


class _TagOnlyResolver(VersionedResolver):
    """Skips ruamel's YAML 1.2 implicit typing (we type plain scalars with YAML 1.1 rules
    ourselves) and only marks merge keys. It was 40% of composing a 1,000-case file."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode:
            if implicit[0] and value == "<<":
                return _MERGE
            return self.DEFAULT_SCALAR_TAG
        if kind is SequenceNode:
            return self.DEFAULT_SEQUENCE_TAG
        return self.DEFAULT_MAPPING_TAG

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


_MERGE = Tag(suffix=MERGE_TAG)
# A YAML instance is not safe to share between threads (the server parses off its loop).
_local = threading.local()


def _parser() -> YAML:
    parser: YAML | None = getattr(_local, "parser", None)
    if parser is None:
        parser = _local.parser = YAML(typ="safe", pure=False)
        parser.Resolver = _TagOnlyResolver
    return parser


def compose(text: str) -> Node | None:
    """The node tree of `text` (None when empty), read as PyYAML reads it where libyaml would
    refuse it (`yaml_rewrite`); raises the parser's errors, and `NestingTooDeep` before
    composing a text nested deeper than the composer can recurse."""
    conclusive = check_nesting(text)
    with warnings.catch_warnings(), gc_paused():
        warnings.simplefilter("ignore")
        return compose_as_pyyaml(text, _compose_raw if conclusive else _compose_checked)


def _compose_raw(text: str) -> Node | None:
    root: Node | None = _parser().compose(text)
    return root


def _compose_checked(text: str) -> Node | None:
    """A text whose nesting check stopped at a syntax error that `yaml_rewrite` may rewrite
    away: each text composed is checked first, or the deep part behind the error would
    reach the C composer (28,000 levels behind a URL in a flow mapping: SIGSEGV)."""
    check_nesting(text)
    return _compose_raw(text)


def node_range(node: Node) -> Range:
    start, end = node.start_mark, node.end_mark
    return Range.of(start.line, start.column, end.line, end.column)


def point_range(line: int, column: int) -> Range:
    """A one-character range in parser coordinates (the loader clamps it to the text)."""
    return Range.of(line, column, line, column + 1)
