"""Which YAML node a cursor is on: its agent path (`("test_cases", 3, "turns", 1, "input")`)
and whether the cursor is on a mapping key or on a value.

Positions are code points (the parser's own unit); callers convert from the client's units
with `positions.py` first. A pure function of the composed node tree — no I/O, no schema.
"""

from __future__ import annotations

from dataclasses import dataclass

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

#: Path elements: mapping keys (as written) and sequence indexes.
PathElement = str | int
#: Deeper than any real agent.yaml; the walk stops there (aliases cannot make it loop).
MAX_DEPTH = 100


@dataclass(frozen=True, slots=True)
class NodeAt:
    """The innermost node under the cursor.

    `path` ends with the key when `on_key` (the cursor is on that key) and also when the cursor
    is on that key's scalar value; for a sequence item it ends with the index. `node` is the
    key's node when `on_key`, else the value node.
    """

    path: tuple[PathElement, ...]
    on_key: bool
    node: Node


def contains(node: Node, line: int, character: int) -> bool:
    """Whether (line, character) lies within `node`, both ends included (a cursor right after
    a word is still on it)."""
    start, end = node.start_mark, node.end_mark
    if (line, character) < (start.line, start.column):
        return False
    return (line, character) <= (end.line, end.column)


def _key_text(node: Node) -> str:
    return str(node.value) if isinstance(node, ScalarNode) else "?"


def node_at(root: Node | None, line: int, character: int) -> NodeAt | None:
    """The node at (line, character) in code points, or None when the cursor is on no node
    (blank lines, comments, outside the document)."""
    if root is None or not contains(root, line, character):
        return None
    path: list[PathElement] = []
    node = root
    for _ in range(MAX_DEPTH):
        if isinstance(node, MappingNode):
            found: Node | None = None
            for key, _ in node.value:
                if contains(key, line, character):
                    return NodeAt((*path, _key_text(key)), True, key)
            for key, value in node.value:
                if contains(value, line, character) and _is_real(value):
                    path.append(_key_text(key))
                    found = value
                    break
            if found is None:
                return NodeAt(tuple(path), False, node) if path else None
            node = found
        elif isinstance(node, SequenceNode):
            found = None
            for index, item in enumerate(node.value):
                if contains(item, line, character):
                    path.append(index)
                    found = item
                    break
            if found is None:
                return NodeAt(tuple(path), False, node)
            node = found
        else:
            return NodeAt(tuple(path), False, node)
    return NodeAt(tuple(path), False, node)


def _is_real(node: Node) -> bool:
    """An empty value (`key:` with nothing after it) has a zero-width node that the cursor can
    only touch by accident; it does not count."""
    start, end = node.start_mark, node.end_mark
    return (start.line, start.column) != (end.line, end.column)
