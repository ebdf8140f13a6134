"""Copies of composed YAML node trees whose marks are moved by a number of lines and characters.

When an edit inserts or removes text, every node after it moves: same column, other line and
character index. The earlier version's tree stays in use (the editor features of that version
read it from other threads), so it is copied, never changed.

A 1,000-case file has ~75,000 nodes and each copied node costs three objects (node and two
marks) that the garbage collector then tracks. So a moved test case is copied lazily
(`moved`): its own node gets moved marks at once, everything below it on first use of its
`value` — which the checker never needs for a case it re-uses, unless a diagnostic points
into it.
"""

from __future__ import annotations

import threading
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

# Lazily moved nodes are shared by threads (checker, editor features): one copy each.
_COPYING = threading.RLock()


def moved_mark(mark: Any, lines: int, chars: int) -> Any:
    """`mark` (a parser mark: name, index, line, column) `lines` lines and `chars` characters
    further, in the same column; of the same type as the composer's own marks."""
    return type(mark)(mark.name, mark.index + chars, mark.line + lines, mark.column, None, None)


def bare_copy(node: Node) -> Node:
    """A copy of `node` sharing its value and marks (for the caller to replace)."""
    copy: Node
    if isinstance(node, ScalarNode):
        scalar = ScalarNode.__new__(ScalarNode)
        scalar.style = node.style
        copy = scalar
    elif isinstance(node, MappingNode):
        mapping = MappingNode.__new__(MappingNode)
        mapping.merge = node.merge
        mapping.flow_style = node.flow_style
        copy = mapping
    elif isinstance(node, SequenceNode):
        sequence = SequenceNode.__new__(SequenceNode)
        sequence.flow_style = node.flow_style
        copy = sequence
    else:  # pragma: no cover - the composer makes only these three kinds
        raise TypeError(f"cannot copy a {type(node).__name__}")
    copy.ctag = node.ctag
    copy.value = node.value
    copy.comment = node.comment
    copy.anchor = node.anchor
    copy.start_mark = node.start_mark
    copy.end_mark = node.end_mark
    return copy


def shifted(node: Node, lines: int, chars: int) -> Node:
    """A copy of `node` and everything below it, moved by `lines` and `chars`."""
    copy = bare_copy(node)
    if isinstance(node, MappingNode):
        copy.value = [
            (shifted(key, lines, chars), shifted(value, lines, chars)) for key, value in node.value
        ]
    elif isinstance(node, SequenceNode):
        copy.value = [shifted(item, lines, chars) for item in node.value]
    start, end = node.start_mark, node.end_mark
    make = type(start)
    copy.start_mark = make(
        start.name, start.index + chars, start.line + lines, start.column, None, None
    )
    copy.end_mark = make(end.name, end.index + chars, end.line + lines, end.column, None, None)
    return copy


def moved(node: Node, lines: int, chars: int) -> Node:
    """`node` moved by `lines` and `chars`; a collection's entries are copied on first use."""
    pending = node.pending if isinstance(node, _MovedMapping | _MovedSequence) else None
    source = node
    if pending is not None:  # not copied yet: move the original further instead
        source, lines, chars = pending.source, pending.lines + lines, pending.chars + chars
    copy: _MovedMapping | _MovedSequence
    if isinstance(source, MappingNode):
        mapping = _MovedMapping.__new__(_MovedMapping)
        mapping.merge = source.merge
        copy = mapping
    elif isinstance(source, SequenceNode):
        copy = _MovedSequence.__new__(_MovedSequence)
    else:
        return shifted(source, lines, chars)
    copy.flow_style = source.flow_style
    copy.ctag = source.ctag
    copy.comment = source.comment
    copy.anchor = source.anchor
    copy.start_mark = moved_mark(source.start_mark, lines, chars)
    copy.end_mark = moved_mark(source.end_mark, lines, chars)
    copy.pending = _Pending(source, lines, chars)
    copy.entries = None
    return copy


class _Pending:
    """What a lazily moved node is a copy of, until it is copied."""

    __slots__ = ("chars", "lines", "source")

    def __init__(self, source: Node, lines: int, chars: int) -> None:
        self.source = source
        self.lines = lines
        self.chars = chars


def _copied(node: _MovedMapping | _MovedSequence) -> list[Any]:
    """The moved node's entries, copied on first use (in any thread; once)."""
    entries = node.entries
    if entries is None:
        with _COPYING:
            entries = node.entries
            if entries is None:
                pending = node.pending
                assert pending is not None
                source, lines, chars = pending.source, pending.lines, pending.chars
                if isinstance(source, MappingNode):
                    entries = [
                        (shifted(key, lines, chars), shifted(value, lines, chars))
                        for key, value in source.value
                    ]
                else:
                    entries = [shifted(item, lines, chars) for item in source.value]
                node.entries = entries
                node.pending = None  # the original may go
    return entries


def _replace(node: _MovedMapping | _MovedSequence, value: list[Any]) -> None:
    with _COPYING:
        node.entries = value
        node.pending = None


class _CopiedOnRead:
    """A moved collection node whose `value` (its children) is copied on first read."""

    __slots__ = ()
    pending: _Pending | None
    entries: list[Any] | None

    @property
    def value(self) -> list[Any]:
        return _copied(self)  # type: ignore[arg-type]

    @value.setter
    def value(self, value: list[Any]) -> None:
        _replace(self, value)  # type: ignore[arg-type]


class _MovedMapping(_CopiedOnRead, MappingNode):
    __slots__ = ("entries", "pending")


class _MovedSequence(_CopiedOnRead, SequenceNode):
    __slots__ = ("entries", "pending")
