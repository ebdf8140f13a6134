"""YAML text -> plain Python data (as HoloDeck's loader sees it) plus the node of every value.

ruamel.yaml's C-accelerated composer gives nodes with start/end marks; we build the Python
values ourselves (YAML 1.1 rules, merge keys, last duplicate wins — PyYAML's behaviour) and
keep the node tree so any validation error path can be turned back into an exact range.
Nothing here raises on bad input: problems are collected with their ranges.
"""

from __future__ import annotations

import os
import re
import threading
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ruamel.yaml import YAML
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from ruamel.yaml.reader import ReaderError
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.tag import Tag

from holodeck_lsp.config.diagnostics import Range, Severity
from holodeck_lsp.config.gc_pause import gc_paused
from holodeck_lsp.config.suite_locator import (
    MERGE_TAG,
    is_merge_key,
    mapping_entries,
    own_cases_sequence,
)
from holodeck_lsp.config.text_positions import YamlLines
from holodeck_lsp.config.yaml11 import resolve_plain, resolve_tagged
from holodeck_lsp.schema.codes import Code

#: Deeper nesting than any real agent.yaml; beyond it we stop instead of recursing further.
MAX_DEPTH = 100
#: Values an alias may expand to in total (a "billion laughs" file would need billions).
MAX_EXPANDED_NODES = 500_000
#: `${NAME}` as HoloDeck substitutes it.
ENV_REFERENCE = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)\}")
_STANDARD_TAG_PREFIX = "tag:yaml.org,2002:"


@dataclass(frozen=True, slots=True)
class Problem:
    """A fault found while reading the YAML itself."""

    code: Code
    severity: Severity
    message: str
    range: Range


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
    """The node tree of `text` (None when empty); raises the parser's errors."""
    with warnings.catch_warnings(), gc_paused():
        warnings.simplefilter("ignore")
        root: Node | None = _parser().compose(text)
    return root


def node_range(node: Node) -> Range:
    start, end = node.start_mark, node.end_mark
    return Range.of(start.line, start.column, end.line, end.column)


def _point_range(line: int, column: int) -> Range:
    """A one-character range in parser coordinates (the loader clamps it to the text)."""
    return Range.of(line, column, line, column + 1)


def parse_yaml(text: str, env: Mapping[str, str] | None = None) -> YamlDocument:
    """Compose `text` and convert it; never raises for bad input.

    `${VAR}` references are substituted from `env` (default: this process's environment),
    as HoloDeck does before parsing; an unset one is a warning, not an error, because the
    editor's environment is rarely the one the suite runs in.
    """
    environment = os.environ if env is None else env
    root: Node | None
    try:
        root = compose(text)
    except MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        # "Unexpected end of stream" points past the last line: show it on the last text.
        index = min(mark.index if mark is not None else 0, max(len(text.rstrip()) - 1, 0))
        where = YamlLines(text).position(index)
        line, column = where.line, where.character
        message = (
            " ".join(part for part in (error.context, error.problem) if part) or "invalid YAML"
        )
        problem = Problem(
            Code.YAML_SYNTAX,
            Severity.ERROR,
            f"YAML syntax error: {message}",
            _point_range(line, column),
        )
        return YamlDocument(text, None, None, [problem])
    except ReaderError as error:
        # A character YAML does not allow (a control character, say): point at it.
        where = YamlLines(text).position(error.position)
        problem = Problem(
            Code.YAML_SYNTAX,
            Severity.ERROR,
            f"YAML syntax error: character {error.character!r} is not allowed in YAML; remove it",
            _point_range(where.line, where.character),
        )
        return YamlDocument(text, None, None, [problem])
    except (YAMLError, RecursionError, ValueError) as error:
        code = Code.TOO_DEEP if isinstance(error, RecursionError) else Code.YAML_SYNTAX
        detail = "nesting is too deep to read" if code is Code.TOO_DEEP else str(error)
        problem = Problem(code, Severity.ERROR, detail, _point_range(0, 0))
        return YamlDocument(text, None, None, [problem])
    return document_of(text, root, environment)


#: A `test_cases` item carried over from an earlier parse: its value and problems.
Reused = tuple[Any, Sequence[Problem]]


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
    if root is not None:
        found = own_cases_sequence(root)
        converter = _Converter(document, env, found[1] if found else None, reused or {})
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


class _Converter:
    """Builds Python values from nodes, PyYAML-style, recording problems with ranges."""

    def __init__(
        self,
        document: YamlDocument,
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
        explicit = self.document.text.startswith("!", node.start_mark.index)
        if not explicit:
            # Plain scalars follow YAML 1.1; quoted and block scalars are strings.
            if node.style:
                return text
            try:
                return resolve_plain(text)
            except ValueError as error:
                self.problem(Code.INVALID_VALUE, str(error), node, Severity.ERROR)
                return text
        tag = str(node.tag)
        if not tag.startswith(_STANDARD_TAG_PREFIX):
            self.problem(
                Code.YAML_SYNTAX,
                f"HoloDeck's YAML loader has no constructor for the tag {tag!r}; remove it",
                node,
                Severity.ERROR,
            )
            return text
        try:
            return resolve_tagged(tag, text)
        except ValueError as error:
            self.problem(Code.INVALID_VALUE, str(error), node, Severity.ERROR)
            return text

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


@dataclass(frozen=True, slots=True)
class Located:
    """Where a validation path lands in the node tree.

    `node` is the deepest node reached; `key` the key node of the last mapping entry walked
    into (None at the root or inside a sequence item); `rest` the path elements that could
    not be followed (e.g. a missing field's name)."""

    node: Node
    key: Node | None
    rest: tuple[str | int, ...]


def _scalar_key(node: Node) -> Any:
    if not isinstance(node, ScalarNode):
        return None
    if node.style:
        return node.value
    try:
        return resolve_plain(node.value)
    except ValueError:
        return node.value


def locate(root: Node, path: Sequence[str | int]) -> Located:
    """Follow a validation path (field names and list indexes) through the node tree.

    Elements written `<like-this>` are union tags added by pydantic, not YAML keys: skipped.
    """
    node, key = root, None
    elements = [element for element in path if not _is_union_tag(element)]
    for position, element in enumerate(elements):
        child: Node | None = None
        child_key: Node | None = None
        if isinstance(node, MappingNode):
            for key_node, value_node in mapping_entries(node):
                if _scalar_key(key_node) == element:
                    child, child_key = value_node, key_node
                    break
        elif (
            isinstance(node, SequenceNode)
            and isinstance(element, int)
            and 0 <= element < len(node.value)
        ):
            child, child_key = node.value[element], None
        if child is None:
            return Located(node, key, tuple(elements[position:]))
        node, key = child, child_key
    return Located(node, key, ())


def _is_union_tag(element: str | int) -> bool:
    return isinstance(element, str) and element.startswith("<") and element.endswith(">")


def key_node_for(mapping: Node, name: str) -> Node | None:
    """The key node of `name` in a mapping node, if present."""
    if isinstance(mapping, MappingNode):
        for key_node, _ in mapping_entries(mapping):
            if _scalar_key(key_node) == name:
                return key_node
    return None


def first_key(mapping: Node) -> Node | None:
    if isinstance(mapping, MappingNode) and mapping.value:
        first: Node = mapping.value[0][0]
        return first
    return None
