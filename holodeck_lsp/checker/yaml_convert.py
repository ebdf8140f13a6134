"""Plain Python values from a composed node tree, as HoloDeck's PyYAML loader builds them:
YAML 1.1 scalars, merge keys, the last duplicate key wins. Problems are recorded with ranges,
never raised.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any, Protocol

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.checker.diagnostics import Range, Severity
from holodeck_lsp.checker.suite_locator import is_merge_key
from holodeck_lsp.checker.yaml11 import resolve_plain, resolve_tagged
from holodeck_lsp.checker.yaml_compose import Problem, node_range
from holodeck_lsp.checker.yaml_scanner_rules import block_header_problem
from holodeck_lsp.checker.yaml_tags import (
    STANDARD_PREFIX,
    explicit_tag,
    tag_problem,
    tagged_collection,
)
from holodeck_lsp.schema.codes import Code

#: Deeper nesting than any real agent.yaml; beyond it we stop instead of recursing further.
MAX_DEPTH = 100
#: Values an alias may expand to in total (a "billion laughs" file would need billions).
MAX_EXPANDED_NODES = 500_000
#: `${NAME}` as HoloDeck substitutes it.
ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
#: What an untagged (or `!!seq` / `!!map`) collection carries.
_PLAIN_COLLECTION_TAG: dict[type[Node], str] = {
    SequenceNode: f"{STANDARD_PREFIX}seq",
    MappingNode: f"{STANDARD_PREFIX}map",
}

#: A `test_cases` item carried over from an earlier parse: its value and problems.
Reused = tuple[Any, Sequence[Problem]]


class Findings(Protocol):
    """Where a conversion records what it finds: the document being built (yaml_document's
    YamlDocument). A protocol, so this module need not import the one that uses it."""

    text: str
    problems: list[Problem]
    unresolved: list[Range]


class Converter:
    """Builds Python values from nodes, PyYAML-style, recording problems with ranges."""

    def __init__(
        self,
        document: Findings,
        env: Mapping[str, str],
        cases: SequenceNode | None = None,
        reused: Mapping[int, Reused] | None = None,
    ) -> None:
        self.document = document
        self.env = env
        # id(node) -> (value, expanded size) of every collection node converted so far.
        self.collections: dict[int, tuple[Any, int]] = {}
        self.visits = 0
        #: The `test_cases` sequence, whose items' values and problems are recorded.
        self.cases = cases
        self.reused: Mapping[int, Reused] = reused or {}
        self.case_values: list[Any] | None = None
        self.case_spans: list[tuple[int, int]] = []

    def problem(self, code: Code, message: str, node: Node, severity: Severity) -> None:
        self.document.problems.append(Problem(code, severity, message, node_range(node)))

    def convert(self, node: Node, depth: int) -> Any:
        if isinstance(node, ScalarNode):
            self.visits += 1
            return self.scalar(node)
        # An alias is the very node object it refers to (the C composer does not keep
        # `anchor` on nodes), so collections are converted once per object and each re-use
        # is charged its full size: a "billion laughs" file is cut short, not expanded.
        seen = self.collections.get(id(node))
        if seen is not None:
            shared, size = seen
            self.visits += size
            if self.visits > MAX_EXPANDED_NODES:
                self.problem(
                    Code.TOO_DEEP,
                    f"aliases expand to more than {MAX_EXPANDED_NODES:,} values; "
                    "not checked further",
                    node,
                    Severity.ERROR,
                )
                return None
            return shared
        if depth > MAX_DEPTH:
            self.problem(
                Code.TOO_DEEP,
                f"nested more than {MAX_DEPTH} levels deep; not checked further",
                node,
                Severity.ERROR,
            )
            return None
        before = self.visits
        self.visits += 1
        if node is self.cases:
            value: Any = self.case_items(node, depth)
        elif isinstance(node, SequenceNode):
            value = [self.convert(child, depth + 1) for child in node.value]
        elif isinstance(node, MappingNode):
            value = self.mapping(node, depth)
        else:  # pragma: no cover - the composer only makes these three kinds
            value = None
        if str(node.tag) != _PLAIN_COLLECTION_TAG.get(type(node)):
            value = self.tagged(node, value)
        self.collections[id(node)] = (value, self.visits - before)
        return value

    def case_items(self, node: Node, depth: int) -> list[Any]:
        problems = self.document.problems
        values: list[Any] = []
        for child in node.value:
            start = len(problems)
            known = self.reused.get(id(child))
            if known is None:
                values.append(self.convert(child, depth + 1))
            else:
                values.append(known[0])
                problems.extend(known[1])
            self.case_spans.append((start, len(problems)))
        self.case_values = values
        return values

    def substitute(self, node: ScalarNode, text: str) -> str:
        unset = False

        def value_of(match: re.Match[str]) -> str:
            nonlocal unset
            found = self.env.get(match.group(1))
            if found is None:
                unset = True
                return match.group(0)
            return found

        text = ENV_REFERENCE.sub(value_of, text)
        if unset:
            self.document.unresolved.append(node_range(node))
        return text

    def scalar(self, node: ScalarNode) -> Any:
        text: str = node.value
        if "${" in text:
            text = self.substitute(node, text)
        source = self.document.text
        style = node.style
        if style == "|" or style == ">":
            header = block_header_problem(source, node)
            if header is not None:
                self.document.problems.append(header)
        start = node.start_mark.index
        # An empty node the parser made for a missing value starts where the next token
        # does (`? a` then `!!str b: c`): that token's tag is not its own.
        if not source.startswith(("!", "&"), start) or node.end_mark.index == start:
            if style:  # plain scalars follow YAML 1.1; quoted and block ones are strings
                return text
            try:
                return resolve_plain(text)
            except ValueError as error:
                self.problem(Code.INVALID_VALUE, str(error), node, Severity.ERROR)
                return text
        span = explicit_tag(source, start)
        if span is None:
            return self.untagged(node, text)
        if span[1] - span[0] == 1:
            # The non-specific tag `!`: PyYAML types the scalar as if it were plain.
            return self.untagged(node, text, plain=True)
        tag = str(node.tag)
        refused = tag_problem(node, tag)
        if refused is not None:
            self.tag_refused(node, span, refused)
            return text
        try:
            return resolve_tagged(tag, text)
        except ValueError as error:
            self.problem(Code.INVALID_VALUE, str(error), node, Severity.ERROR)
            return text

    def untagged(self, node: ScalarNode, text: str, plain: bool = False) -> Any:
        # Plain scalars follow YAML 1.1; quoted and block scalars are strings.
        if node.style and not plain:
            return text
        try:
            return resolve_plain(text)
        except ValueError as error:
            self.problem(Code.INVALID_VALUE, str(error), node, Severity.ERROR)
            return text

    def tagged(self, node: Node, value: Any) -> Any:
        """A collection's value under its explicit tag (`!!set`, `!!omap`, `!!python/…`)."""
        tag = str(node.tag)
        span = explicit_tag(self.document.text, node.start_mark.index)
        where = span or (node.start_mark.index, node.start_mark.index + 1)
        refused = tag_problem(node, tag)
        if refused is not None:
            self.tag_refused(node, where, refused)
            return value
        value, bad_item = tagged_collection(tag, value)
        if bad_item is not None:
            # PyYAML stops at the item, naming the tag as the context.
            item = node.value[bad_item]
            self.problem(
                Code.YAML_SYNTAX,
                f"YAML syntax error: each item of {self.document.text[where[0] : where[1]]} "
                "must be a mapping with one key (`- key: value`); HoloDeck's YAML loader "
                "refuses the whole file. The loader says: expected a mapping of length 1",
                item,
                Severity.ERROR,
            )
        return value

    def tag_refused(self, node: Node, span: tuple[int, int], reason: str) -> None:
        """PyYAML's safe loader refuses the whole file: an error at the tag."""
        text = self.document.text
        start = node.start_mark
        line = start.line + text.count("\n", start.index, span[0])
        column = (
            span[0] - (text.rfind("\n", 0, span[0]) + 1)
            if line != start.line
            else (start.column + span[0] - start.index)
        )
        tag_text = text[span[0] : span[1]]
        self.document.problems.append(
            Problem(
                Code.YAML_SYNTAX,
                Severity.ERROR,
                f"HoloDeck's YAML loader (PyYAML's safe loader) refuses the tag {tag_text!r} "
                f"here and with it the whole file; remove the tag. The loader says: {reason}",
                Range.of(line, column, line, column + len(tag_text)),
            )
        )

    def key(self, node: Node, depth: int) -> Any:
        value = self.convert(node, depth + 1)
        try:
            hash(value)
        except TypeError:
            self.problem(
                Code.YAML_SYNTAX,
                "a mapping key must be a plain value, not a list or mapping",
                node,
                Severity.ERROR,
            )
            return None
        return value

    def mapping(self, node: MappingNode, depth: int) -> dict[Any, Any]:
        result: dict[Any, Any] = {}
        merged: dict[Any, Any] = {}
        key_nodes: dict[Any, Node] = {}
        for key_node, value_node in node.value:
            if is_merge_key(key_node):
                self.merge_into(merged, value_node, depth)
                continue
            key = self.key(key_node, depth)
            previous = key_nodes.get(key)
            if previous is not None:
                self.problem(
                    Code.DUPLICATE_KEY,
                    f"duplicate key {key!r} (first at line {previous.start_mark.line + 1}); "
                    "HoloDeck silently keeps this last value — remove one of them "
                    "(holodeck-lsp check: YAML requires unique keys)",
                    key_node,
                    Severity.WARNING,
                )
            key_nodes[key] = key_node
            result[key] = self.convert(value_node, depth + 1)
        if merged:
            merged.update(result)
            return merged
        return result

    def merge_into(self, merged: dict[Any, Any], value_node: Node, depth: int) -> None:
        """`<<: *base` / `<<: [*a, *b]`: earlier sources win over later ones."""
        sources = value_node.value if isinstance(value_node, SequenceNode) else [value_node]
        for source in reversed(sources):
            value = self.convert(source, depth + 1)
            if isinstance(value, dict):
                merged.update(value)
            else:
                self.problem(
                    Code.YAML_SYNTAX,
                    "a merge key `<<` takes a mapping or a list of mappings",
                    source,
                    Severity.ERROR,
                )
