"""What semantic highlighting colours, found in a composed YAML tree: argument matcher kinds
(`fuzzy:` / `regex:` under `args:`), tool names (declared and in `expected_tools`), grader
references (`module.path:callable`), `#N` step references in ConvFinQA-style programs (any
value written as one, such as a `ground_truth` or the sample's `turn_program`
`subtract(60.94, 25.14), divide(#0, 25.14)`), and metric names.

A pure function of the nodes — no I/O. Columns are code points; spans stay on one line.
Each collection is walked once: an alias is the very node it names, so following every alias
of an alias bomb would grow exponentially (issue 35); its text, and so its colours, is where
its anchor is written — the first time the walk meets it. An aliased scalar is met once per
alias (a `grader: *g` colours the anchored text), its span kept once.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.schema.matchers import MATCHER_KEYS
from holodeck_lsp.server.documents.name_kinds import NameKind
from holodeck_lsp.server.documents.node_at import MAX_DEPTH, PathElement
from holodeck_lsp.server.documents.suite_names import suite_names, text_span
from holodeck_lsp.server.documents.token_legend import DECLARATION, READONLY, TokenType

_STEP = re.compile(r"(?<![\w#])#\d+\b")
#: A ConvFinQA-style program starts with an operation's call: `subtract(`, `divide(`.
_PROGRAM = re.compile(r"\s*[A-Za-z_]\w*\(")

#: (line, start, length, type, modifiers)
Span = tuple[int, int, int, int, int]


def _walk(node: Node, path: tuple[PathElement, ...], depth: int, seen: set[int]) -> Iterator[Span]:
    if depth > MAX_DEPTH:
        return
    if not isinstance(node, ScalarNode):  # a collection: walked once (see above)
        if id(node) in seen:
            return
        seen.add(id(node))
    if isinstance(node, MappingNode):
        in_args = bool(path) and len(path) >= 2 and path[-2] == "args"
        for key, value in node.value:
            if not isinstance(key, ScalarNode):
                continue
            name = str(key.value)
            if in_args and name in MATCHER_KEYS:
                span = text_span(key)
                if span is not None:
                    yield span[0], span[1], span[2] - span[1], TokenType.MATCHER, 0
            yield from _walk(value, (*path, name), depth + 1, seen)
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            yield from _walk(item, (*path, index), depth + 1, seen)
    elif isinstance(node, ScalarNode) and path:
        yield from _scalar(node, path)


def _scalar(node: ScalarNode, path: tuple[PathElement, ...]) -> Iterator[Span]:
    key = path[-1]
    text = node.value
    program = isinstance(text, str) and "#" in text and _PROGRAM.match(text) is not None
    if key not in ("grader", "metric", "metric_type") and not program:
        return
    span = text_span(node)
    if span is None:
        return
    line, start, end = span
    text = str(node.value)
    if key == "grader":
        module, colon, attribute = text.partition(":")
        if colon and module.strip() and attribute.strip():
            yield line, start, len(module), TokenType.MODULE, 0
            yield line, start + len(module) + 1, len(attribute), TokenType.TOOL, 0
    elif key in ("metric", "metric_type"):
        if text.strip():
            yield line, start, end - start, TokenType.METRIC, 0
    elif program:
        for match in _STEP.finditer(text):
            yield line, start + match.start(), match.end() - match.start(), TokenType.STEP, READONLY


def token_spans(root: Node | None) -> list[Span]:
    """Every coloured span of the file, sorted by position."""
    if root is None:
        return []
    spans = list(_walk(root, (), 0, set()))
    for name in suite_names(root):
        if name.kind is NameKind.TOOL:
            spans.append(
                (name.line, name.start, name.end - name.start, TokenType.TOOL, DECLARATION)
            )
        elif name.kind is NameKind.EXPECTED_TOOL:
            spans.append((name.line, name.start, name.end - name.start, TokenType.TOOL, 0))
    return sorted(set(spans))  # an aliased scalar's span is found once per alias
