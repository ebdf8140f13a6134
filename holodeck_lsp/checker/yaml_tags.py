"""Explicit tags as HoloDeck's PyYAML `safe_load` constructs them (docs/checks.md, "Reading
YAML like HoloDeck does").

The safe loader knows the standard tags only: on scalars `!!str`, `!!int`, `!!float`,
`!!bool`, `!!null`, `!!timestamp`, `!!binary`; on sequences `!!seq`, `!!omap`, `!!pairs`; on
mappings `!!map`, `!!set`. Any other tag — `!!python/object:…`, `!include`, a root tag — is
a ConstructorError that refuses the whole file, and so is a standard tag on the wrong kind of
node (`!!str [a]`). The non-specific tag `!` makes a scalar typed as if it were plain, even
when quoted (`! '12'` is the number 12).
"""

from __future__ import annotations

import re
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

STANDARD_PREFIX = "tag:yaml.org,2002:"
SCALAR_KINDS = frozenset({"str", "int", "float", "bool", "null", "timestamp", "binary"})
_SEQUENCE_KINDS = frozenset({"seq", "omap", "pairs"})
_MAPPING_KINDS = frozenset({"map", "set"})
#: An anchor before the tag (`&a !!int 7`): the node starts at the anchor.
_ANCHOR = re.compile(r"&[^\s]*\s+")
_TAG = re.compile(r"![^\s]*")
_SPACES = re.compile(r"\s*")
_KIND_NAMES = {ScalarNode: "scalar", SequenceNode: "sequence", MappingNode: "mapping"}


def explicit_tag(text: str, index: int) -> tuple[int, int] | None:
    """(start, end) in `text` of the tag written on the node starting at `index`, if any: the
    node starts at its tag, or at an anchor followed by spaces, comments and the tag."""
    anchor = _ANCHOR.match(text, index)
    if anchor is None:
        tag = _TAG.match(text, index)
        return None if tag is None else tag.span()
    at = anchor.end()
    while text.startswith("#", at):  # `&a # why` then the tag on the next line
        comment_end = text.find("\n", at)
        if comment_end < 0:
            return None
        at = _SPACES.match(text, comment_end).end()  # type: ignore[union-attr]
    tag = _TAG.match(text, at)
    return None if tag is None else tag.span()


def kind_of(node: Node) -> str:
    return _KIND_NAMES.get(type(node), "node")


def tag_problem(node: Node, tag: str) -> str | None:
    """Why PyYAML's safe loader refuses `tag` on `node`, or None when it constructs it."""
    if not tag.startswith(STANDARD_PREFIX):
        return f"could not determine a constructor for the tag {tag!r}"
    kind = tag[len(STANDARD_PREFIX) :]
    if isinstance(node, ScalarNode):
        allowed, wanted = SCALAR_KINDS, "a scalar"
    elif isinstance(node, SequenceNode):
        allowed, wanted = _SEQUENCE_KINDS, "a sequence"
    else:
        allowed, wanted = _MAPPING_KINDS, "a mapping"
    if kind in allowed:
        return None
    if kind in SCALAR_KINDS:
        return f"expected a scalar node, but found {kind_of(node)} ({tag!r} is for scalars)"
    if kind in _SEQUENCE_KINDS:
        return f"expected a sequence node, but found {kind_of(node)} ({tag!r} is for sequences)"
    if kind in _MAPPING_KINDS:
        return f"expected a mapping node, but found {kind_of(node)} ({tag!r} is for mappings)"
    return f"could not determine a constructor for the tag {tag!r} on {wanted}"


def tagged_collection(tag: str, value: Any) -> tuple[Any, int | None]:
    """The value PyYAML builds for a collection tagged `tag` (already allowed by
    `tag_problem`) from its plain `value`, and the index of the item that stops it, if one
    does (an `!!omap` / `!!pairs` item that is not a one-key mapping)."""
    kind = tag[len(STANDARD_PREFIX) :]
    if kind == "set" and isinstance(value, dict):
        return set(value), None
    if kind in ("omap", "pairs") and isinstance(value, list):
        pairs: list[tuple[Any, Any]] = []
        for index, item in enumerate(value):
            if not isinstance(item, dict) or len(item) != 1:
                return value, index
            pairs.extend(item.items())
        return pairs, None
    return value, None
