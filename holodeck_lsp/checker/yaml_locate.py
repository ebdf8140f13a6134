"""Following a validation path (field names, list indexes) back to its node in the tree.

A check reporting many errors in one mapping (10,000 unknown keys, issue 35) locates each of
them: a `KeyIndex` reads each mapping's keys once, so locating them all stays linear in the
document instead of scanning the whole mapping per error (docs/benchmarks.md, "Hostile
input"). One index serves one tree: the caller keeps it while it reports on that tree.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.checker.suite_locator import mapping_entries
from holodeck_lsp.checker.yaml11 import resolve_plain
from holodeck_lsp.checker.yaml_convert import ENV_REFERENCE


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


#: Mappings with fewer entries are scanned: building their index costs more than it saves.
_INDEXED_FROM = 16


class KeyIndex:
    """Each mapping's keys, read once, by the loader's rule (`mapping_entries`: the last
    duplicate wins, then merged-in keys). Holds the mappings it indexed (so their ids stay
    theirs): keep it no longer than the tree."""

    def __init__(self) -> None:
        self._mappings: dict[int, tuple[MappingNode, dict[Any, tuple[Node, Node]]]] = {}

    def entry(self, mapping: MappingNode, name: str | int) -> tuple[Node, Node] | None:
        """The (key, value) nodes of `name` in `mapping`, or None."""
        if len(mapping.value) < _INDEXED_FROM:
            for key_node, value_node in mapping_entries(mapping):
                if _scalar_key(key_node) == name:
                    return key_node, value_node
            return None
        known = self._mappings.get(id(mapping))
        if known is None or known[0] is not mapping:
            keys: dict[Any, tuple[Node, Node]] = {}
            for key_node, value_node in mapping_entries(mapping):
                name_of_key = _scalar_key(key_node)
                if _hashable(name_of_key):
                    keys.setdefault(name_of_key, (key_node, value_node))
            known = self._mappings[id(mapping)] = (mapping, keys)
        return known[1].get(name)


def _hashable(value: Any) -> bool:
    try:
        hash(value)
    except TypeError:
        return False
    return True


def locate(root: Node, path: Sequence[str | int], index: KeyIndex | None = None) -> Located:
    """Follow a validation path (field names and list indexes) through the node tree; `index`
    (one per tree) makes many lookups in one large mapping cheap.

    Elements written `<like-this>` are union tags added by pydantic, not YAML keys: skipped.
    """
    keys = index if index is not None else KeyIndex()
    node, key = root, None
    elements = [element for element in path if not _is_union_tag(element)]
    for position, element in enumerate(elements):
        child: Node | None = None
        child_key: Node | None = None
        if isinstance(node, MappingNode):
            found = keys.entry(node, element)
            if found is not None:
                child_key, child = found
            else:
                child_key, child = _substituted_key(node, element)
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


def _substituted_key(mapping: MappingNode, element: str | int) -> tuple[Node | None, Node | None]:
    """The entry whose key is written with a `${VAR}` (`${TENANT}_key:`) and reads as
    `element` once substituted: each reference stands for any text. Without the environment
    at hand, a key is taken only when it is the one such key that fits."""
    if not isinstance(element, str):
        return None, None
    found: list[tuple[Node, Node]] = []
    for key_node, value_node in mapping_entries(mapping):
        if isinstance(key_node, ScalarNode) and "${" in key_node.value:
            literals = ENV_REFERENCE.split(key_node.value)[::2]  # split keeps the names' groups
            pattern = ".*".join(re.escape(literal) for literal in literals)
            if re.fullmatch(pattern, element, re.DOTALL):
                found.append((key_node, value_node))
    return found[0] if len(found) == 1 else (None, None)


def _is_union_tag(element: str | int) -> bool:
    return isinstance(element, str) and element.startswith("<") and element.endswith(">")


def key_node_for(mapping: Node, name: str, index: KeyIndex | None = None) -> Node | None:
    """The key node of `name` in a mapping node, if present."""
    if isinstance(mapping, MappingNode):
        found = (index if index is not None else KeyIndex()).entry(mapping, name)
        return None if found is None else found[0]
    return None


def first_key(mapping: Node) -> Node | None:
    if isinstance(mapping, MappingNode) and mapping.value:
        first: Node = mapping.value[0][0]
        return first
    return None
