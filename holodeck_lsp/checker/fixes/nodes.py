"""Finding the node a fix changes, and writing a value back the way the node was written."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.checker.fixes.edits import Edit

#: Deeper than any agent file; the walk stops there instead of recursing further.
_MAX_DEPTH = 200
#: A value that needs no quotes in a YAML block or flow context.
_PLAIN_SAFE = re.compile(r"[A-Za-z_][A-Za-z0-9_.\-/]*")
BLOCK_STYLES = ("|", ">")


def _walk(node: Node, depth: int = 0) -> Iterator[Node]:
    """Every node of the tree, keys included (aliased collections once per occurrence,
    bounded by depth)."""
    yield node
    if depth > _MAX_DEPTH:
        return
    if isinstance(node, MappingNode):
        for key, value in node.value:
            yield from _walk(key, depth + 1)
            yield from _walk(value, depth + 1)
    elif isinstance(node, SequenceNode):
        for item in node.value:
            yield from _walk(item, depth + 1)


def scalar_at(root: Node, offset: int) -> ScalarNode | None:
    """The scalar whose source text contains `offset` (the innermost, if any overlap)."""
    found: ScalarNode | None = None
    for node in _walk(root):
        if not isinstance(node, ScalarNode):
            continue
        inside = node.start_mark.index <= offset < node.end_mark.index
        if inside and (found is None or node.start_mark.index >= found.start_mark.index):
            found = node
    return found


def double_quoted(value: str) -> str:
    # JSON strings are valid YAML double-quoted scalars (same escapes).
    return json.dumps(value, ensure_ascii=False)


def is_plain(node: ScalarNode) -> bool:
    return not node.style


def replacement_for(node: ScalarNode, value: str) -> str:
    """`value` written the way `node` was: plain if it was plain and can stay so."""
    if node.style == "'" and "\n" not in value:
        return "'" + value.replace("'", "''") + "'"
    if is_plain(node) and _PLAIN_SAFE.fullmatch(value):
        return value
    return double_quoted(value)


def replace(node: ScalarNode, new_text: str) -> Edit:
    return Edit(node.start_mark.index, node.end_mark.index, new_text)
