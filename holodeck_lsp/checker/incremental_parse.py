"""Parse an edited agent.yaml re-using the previous version's parse: only the edited test cases
are composed and converted again.

A suite is mostly its top-level block `test_cases:` sequence, and an edit usually stays inside
one case. Given the previous `YamlDocument` and the new text, the changed span is found
(common prefix / suffix); the *chunk* is the text of the cases it touches, from the line of
the first one's `-` to the line of the next untouched case's `-`. The chunk alone is composed
inside a frame that gives the parser the same surroundings it has in the whole file:

    t:                      <- the root mapping at column 0, as the real one
      - name: edited        <- the chunk, at its own columns
        ...
      -                     <- where the next case's `-` is (or the next root key, `z:`)

Within the chunk the parser then sees the same characters in the same state as in a full
parse (same columns, same indentation levels around it), so it builds the same nodes. The
new root shares the nodes and values of the cases before the chunk, takes the chunk's items
(moved to their lines and offsets), and copies of the cases after it moved by the edit's
line and length change (`node_shift.moved`: the previous tree is not changed, the previous
version is still in use). Each case's problems (duplicate keys, bad values) move with it.

Anything unusual is parsed in full instead, so the result always equals `parse_yaml(text)`:
`${VAR}`s (the environment decides their values), anchors / aliases / merge keys (nodes shared
across cases), directives, a BOM or line breaks other than `\\n` / `\\r\\n`, a root that is not
a block mapping at column 0, a flow-style `test_cases`, an edit outside the cases, a chunk that
does not start with its case's `-` or does not compose cleanly in its frame.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.checker.gc_pause import gc_paused
from holodeck_lsp.checker.node_shift import bare_copy, moved, moved_mark, shifted
from holodeck_lsp.checker.text_diff import changed_span
from holodeck_lsp.checker.text_positions import YAML_ONLY_BREAKS
from holodeck_lsp.checker.yaml_document import (
    CaseItems,
    Reused,
    YamlDocument,
    compose,
    document_of,
    parse_yaml,
)

#: The frame's first line: a root mapping at column 0 whose value is the chunk's sequence.
_FRAME_KEY = "t:\n"
#: After a chunk that is followed by a root key: a key at column 0 ends the sequence there.
_NEXT_KEY = "z:\n"


def parse_edited(
    text: str, previous: YamlDocument | None, env: Mapping[str, str] | None = None
) -> YamlDocument:
    """`parse_yaml(text, env)`, re-using `previous` (a parse of an earlier version) where it
    can; the result is the same either way."""
    if previous is not None:
        with gc_paused():  # the copies of the moved cases are many small objects
            document = reparse(text, previous)
        if document is not None:
            return document
    return parse_yaml(text, env)


def reparse(text: str, previous: YamlDocument) -> YamlDocument | None:
    """The parse of `text` made from `previous` and the edited cases, or None when `text`
    must be parsed in full (see the module doc)."""
    cases, root = previous.cases, previous.root
    if cases is None or not isinstance(root, MappingNode) or not _plain_enough(text):
        return None
    change = changed_span(previous.text, text)
    if change is None:  # the same text: the same parse (a ${VAR}-free text needs no env)
        return YamlDocument(text, root, previous.value, list(previous.problems), [], previous.cases)
    if root.flow_style or root.start_mark.column != 0 or cases.node.flow_style:
        return None
    if "%" in previous.text[: root.start_mark.index]:  # a directive may change tags
        return None
    chunk = _Chunk.find(previous, cases, change.start, change.old_end, text)
    return None if chunk is None else chunk.reparse()


def _plain_enough(text: str) -> bool:
    """No feature that ties distant parts of the text together or moves line numbers."""
    if "${" in text or "<<" in text or text.startswith("\ufeff"):
        return False
    if any(character in text for character in YAML_ONLY_BREAKS):
        return False
    if "\r" in text and text.count("\r") != text.count("\r\n"):
        return False
    return not any(_has_anchor_or_alias(text, indicator) for indicator in "&*")


def _has_anchor_or_alias(text: str, indicator: str) -> bool:
    """Whether `indicator` (`&` or `*`) may start an anchor or alias somewhere: preceded by
    a space, a line break, `[`, `{`, `,` or `:` (or nothing) and followed by a name. Inside
    quoted text this may be a false alarm, which only costs a full parse."""
    at = text.find(indicator)
    while at != -1:
        before = text[at - 1] if at else " "
        after = text[at + 1 : at + 2]
        if (
            (before.isspace() or before in "[{,:")
            and after
            and not (after.isspace() or after in "[]{},")
        ):
            return True
        at = text.find(indicator, at + 1)
    return False


def _dash_line(text: str, item: Node, column: int) -> int | None:
    """Where the line of `item`'s `-` starts, if the item starts on that line right after it:
    `column` spaces, `-`, spaces."""
    index = item.start_mark.index
    line_start = text.rfind("\n", 0, index) + 1
    lead = text[line_start:index]
    if (
        lead[:column] != " " * column
        or lead[column : column + 1] != "-"
        or lead[column + 1 :].strip(" ")
    ):
        return None
    return line_start


def _starts_item(chunk: str, column: int) -> bool:
    return (
        chunk[:column] == " " * column
        and chunk[column : column + 1] == "-"
        and (chunk[column + 1 : column + 2] in ("", " ", "\n", "\r"))
    )


@dataclass(frozen=True, slots=True)
class _Chunk:
    """The cases `first`..`stop - 1` of the previous version, `previous.text[start:end]`,
    which are `text[start:end + delta]` in the new one."""

    previous: YamlDocument
    cases: CaseItems
    text: str
    first: int
    stop: int
    start: int
    end: int
    #: What follows the chunk in the file, as the frame reproduces it.
    after: str
    #: The parser's number of lines in the chunk's previous text (it counts every YAML line
    #: break there, which the new text may no longer have).
    old_lines: int = 0

    @property
    def delta(self) -> int:
        return len(self.text) - len(self.previous.text)

    @classmethod
    def find(
        cls, previous: YamlDocument, cases: CaseItems, start: int, old_end: int, text: str
    ) -> _Chunk | None:
        """The cases whose lines hold `previous.text[start:old_end]` (the changed span)."""
        items, old = cases.node.value, previous.text
        column = cases.node.start_mark.column
        if not items:
            return None
        # The chunk starts with the case whose item (not `-` line) starts before the edit: an
        # edit at the start of a case's `-` line takes the case before too (a line inserted
        # there may belong to that case, e.g. to its `|+` block scalar).
        starts = [item.start_mark.index for item in items]
        first = max(bisect_right(starts, start) - 1, 0)
        line = _dash_line(old, items[first], column)
        if line is not None and line > start and first > 0:
            first -= 1  # the edit is on the case's `-` line, before the item itself
            line = _dash_line(old, items[first], column)
        if line is None or line > start:
            return None
        stop = max(bisect_left(starts, old_end), first + 1)
        while stop < len(items):
            end = _dash_line(old, items[stop], column)
            if end is None:
                return None
            if end >= old_end:
                lines = items[stop].start_mark.line - items[first].start_mark.line
                sentinel = " " * column + "-\n"
                return cls(previous, cases, text, first, stop, line, end, sentinel, lines)
            stop += 1
        root = previous.root
        assert isinstance(root, MappingNode)
        if cases.pair + 1 == len(root.value):  # the cases run to the end of the file
            return cls(previous, cases, text, first, stop, line, len(old), "")
        next_key = root.value[cases.pair + 1][0]
        if next_key.start_mark.column != 0 or next_key.start_mark.index < old_end:
            return None
        lines = next_key.start_mark.line - items[first].start_mark.line
        end = next_key.start_mark.index
        return cls(previous, cases, text, first, stop, line, end, _NEXT_KEY, lines)

    def reparse(self) -> YamlDocument | None:
        old_items = self.cases.node.value
        column = self.cases.node.start_mark.column
        chunk = self.text[self.start : self.end + self.delta]
        if chunk and not _starts_item(chunk, column):
            return None
        if chunk and self.after and not chunk.endswith("\n"):
            return None  # the untouched rest no longer starts on a line of its own
        composed = self.compose(chunk)
        if composed is None:
            return None
        frame, sequence = composed
        # Chunk coordinates -> file coordinates: the chunk's first line is the first case's.
        to_lines = old_items[self.first].start_mark.line - 1
        to_chars = self.start - len(_FRAME_KEY)
        new_items = sequence.value[:-1] if self.after.endswith("-\n") else sequence.value
        lines = chunk.count("\n") - self.old_lines  # the new text breaks lines at \n only
        chars = self.delta
        after = old_items[self.stop :]
        if lines or chars:
            after = [moved(item, lines, chars) for item in after]
        items = [
            *old_items[: self.first],
            *(shifted(item, to_lines, to_chars) for item in new_items),
            *after,
        ]
        to_end = self.after == ""
        if to_end:
            sequence_end = moved_mark(sequence.end_mark, to_lines, to_chars)
            root_end = moved_mark(frame.end_mark, to_lines, to_chars)
        else:
            sequence_end = moved_mark(self.cases.node.end_mark, lines, chars)
            root = self.previous.root
            assert root is not None
            root_end = moved_mark(root.end_mark, lines, chars)
        root = self.new_root(items, sequence_end, root_end, lines, chars)
        reused = self.reused(after, lines)
        # No ${VAR} in the text (see `_plain_enough`): no environment is needed.
        return document_of(self.text, root, {}, reused)

    def compose(self, chunk: str) -> tuple[MappingNode, SequenceNode] | None:
        """The chunk composed in its frame, if it composes cleanly to a block sequence at the
        chunk's column whose end is where the frame says."""
        column = self.cases.node.start_mark.column
        framed = _FRAME_KEY + chunk + self.after
        try:
            frame = compose(framed)
        except Exception:  # any parser complaint: the full parse reports it properly
            return None
        entries = 2 if self.after == _NEXT_KEY else 1
        if not isinstance(frame, MappingNode) or len(frame.value) != entries:
            return None
        key, sequence = frame.value[0]
        if not (isinstance(key, ScalarNode) and key.value == "t") or not isinstance(
            sequence, SequenceNode
        ):
            return None
        if sequence.flow_style or sequence.start_mark.index != len(_FRAME_KEY) + column:
            return None
        after_at = len(_FRAME_KEY) + len(chunk)
        if self.after == _NEXT_KEY:
            if frame.value[1][0].start_mark.index != after_at:
                return None
        elif self.after:
            last = sequence.value[-1]
            if (
                not isinstance(last, ScalarNode)
                or last.value
                or last.start_mark.index != (after_at + column + 1)
            ):
                return None
        return frame, sequence

    def new_root(
        self, items: list[Node], sequence_end: Any, root_end: Any, lines: int, chars: int
    ) -> MappingNode:
        root = self.previous.root
        assert isinstance(root, MappingNode)
        pair = self.cases.pair
        key = root.value[pair][0]
        sequence = _collection_like(
            self.cases.node, items, self.cases.node.start_mark, sequence_end
        )
        later = root.value[pair + 1 :]
        if lines or chars:
            later = [(shifted(k, lines, chars), shifted(v, lines, chars)) for k, v in later]
        entries = [*root.value[:pair], (key, sequence), *later]
        new_root = _collection_like(root, entries, root.start_mark, root_end)
        assert isinstance(new_root, MappingNode)
        return new_root

    def reused(self, after: list[Node], lines: int) -> dict[int, Reused]:
        """What the untouched cases gave before, by their nodes in the new tree. A moved
        case with problems is converted again: a message may name a line number."""
        values, spans, problems = self.cases.values, self.cases.spans, self.previous.problems
        old_items = self.cases.node.value
        reused: dict[int, Reused] = {}
        for index in range(self.first):
            low, high = spans[index]
            reused[id(old_items[index])] = (values[index], problems[low:high])
        for index, node in enumerate(after, start=self.stop):
            low, high = spans[index]
            if low == high or lines == 0:
                reused[id(node)] = (values[index], problems[low:high])
        return reused


def _collection_like(node: Node, value: list[Any], start: Any, end: Any) -> Node:
    """A copy of a collection node with other entries and marks."""
    copy = bare_copy(node)
    copy.value = value
    copy.start_mark = start
    copy.end_mark = end
    return copy
