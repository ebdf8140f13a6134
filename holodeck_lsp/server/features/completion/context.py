"""Where a completion is asked for, read from the text alone: the text being typed is often not
valid YAML (`- inp`, a key with no value yet), so the agent path of the mapping the cursor is in
is found by walking up the lines by indentation, counting `- ` items. Block-style YAML only (what
agent.yaml files use); anything it cannot follow gives no path rather than a wrong one.

Columns are code points. A pure function of the lines — no I/O, no schema.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from enum import StrEnum

PathElement = str | int

_KEY = re.compile(r"""([A-Za-z_][\w.\-]*|"[^"\n]*"|'[^'\n]*')[ \t]*:(?:[ \t]+(.*)|$)""")
_PARTIAL = re.compile(r"""[\w.\-"'/]*""")
#: How far up to look for a parent; far deeper than any agent.yaml nests.
MAX_DEPTH = 64


class Mode(StrEnum):
    KEY = "key"  # a key of the mapping at `path` (e.g. `  inp|`)
    ITEM = "item"  # a new `- ` item of the sequence at `path` (e.g. `- inp|`)
    VALUE = "value"  # the value of `key` in the mapping at `path` (e.g. `provider: op|`)


@dataclass(frozen=True, slots=True)
class Line:
    indent: int  # column of the first non-blank character
    dashes: tuple[int, ...]  # columns of the leading `- ` sequence markers
    content: int  # column where the text after the markers starts
    key: str | None  # the mapping key at `content`, if any
    value: str  # the text after `key:` (stripped; "" for none)
    blank: bool  # empty or a comment


def parse_line(text: str) -> Line:
    stripped = text.lstrip(" ")
    indent = len(text) - len(stripped)
    if not stripped.strip() or stripped.startswith("#"):
        return Line(indent, (), indent, None, "", True)
    dashes: list[int] = []
    column = indent
    while text.startswith("-", column) and (column + 1 == len(text) or text[column + 1] in " \t"):
        dashes.append(column)
        column += 1
        while column < len(text) and text[column] in " \t":
            column += 1
    match = _KEY.match(text, column)
    if match is None:
        return Line(indent, tuple(dashes), column, None, "", False)
    key = match.group(1).strip("\"'")
    value = (match.group(2) or "").split(" #", 1)[0].strip()
    return Line(indent, tuple(dashes), column, key, value, False)


@dataclass(frozen=True, slots=True)
class Context:
    mode: Mode
    #: Path of the mapping (KEY / VALUE) or of the sequence (ITEM) the cursor is in.
    path: tuple[PathElement, ...]
    #: The word being typed (replaced by the completion), and the column where it starts.
    prefix: str
    start: int
    #: The column of the mapping's keys (where new keys go).
    column: int
    key: str | None = None  # VALUE: the key whose value is typed
    #: Keys of the mapping already written (the cursor line excluded), with scalar values.
    siblings: dict[str, str] = field(default_factory=dict)


class _Lines:
    def __init__(self, lines: Sequence[str]) -> None:
        self.lines = lines
        self._cache: dict[int, Line] = {}

    def __getitem__(self, index: int) -> Line:
        line = self._cache.get(index)
        if line is None:
            line = self._cache[index] = parse_line(self.lines[index])
        return line

    def _deeper(self, index: int, column: int) -> bool:
        """Whether line `index` is blank or indented past `column` (cheap: no parse)."""
        text = self.lines[index]
        return len(text) - len(text.lstrip(" ")) > column or not text.strip()

    def mapping_path(
        self, index: int, column: int, depth: int = 0
    ) -> tuple[PathElement, ...] | None:
        """Path of the mapping whose keys are at `column`, which line `index` belongs to."""
        if depth > MAX_DEPTH:
            return None
        line = self[index]
        if not line.blank and line.dashes and line.content == column:
            return self.item_path(index, line.dashes, depth)
        for above in range(index - 1, -1, -1):
            if self._deeper(above, column - 1):
                continue
            parent = self[above]
            if parent.blank or parent.indent >= column:
                continue
            if parent.dashes and parent.content == column:
                return self.item_path(above, parent.dashes, depth)
            if parent.key is not None and not parent.value and parent.content < column:
                owner = self.mapping_path(above, parent.content, depth + 1)
                return None if owner is None else (*owner, parent.key)
            return None
        return () if column == 0 else None

    def item_path(
        self, index: int, dashes: tuple[int, ...], depth: int
    ) -> tuple[PathElement, ...] | None:
        """Path of the sequence item starting on line `index` (its `- ` at `dashes[-1]`)."""
        if len(dashes) != 1:
            return None  # `- - x`: nested sequences do not occur in agent.yaml
        owner = self.sequence_owner(index, dashes[0], depth)
        if owner is None:
            return None
        path, count = owner
        return (*path, count)

    def sequence_owner(
        self, index: int, dash: int, depth: int
    ) -> tuple[tuple[PathElement, ...], int] | None:
        """The path of the sequence whose `- ` markers are at `dash`, and how many of its items
        start above line `index`."""
        count = 0
        for above in range(index - 1, -1, -1):
            if self._deeper(above, dash):
                continue
            parent = self[above]
            if parent.blank or parent.indent > dash:
                continue
            if parent.indent == dash and parent.dashes:
                count += 1
                continue
            if parent.key is not None and not parent.value and parent.content <= dash:
                owner = self.mapping_path(above, parent.content, depth + 1)
                return None if owner is None else ((*owner, parent.key), count)
            return None
        return None

    def siblings(self, index: int, column: int) -> dict[str, str]:
        """Keys at `column` in the mapping around line `index` (that line left out)."""
        found: dict[str, str] = {}
        for above in range(index - 1, -1, -1):
            line = self[above]
            if line.blank or line.indent > column:
                continue
            if line.content != column or line.key is None:
                break
            found.setdefault(line.key, line.value)
            if line.dashes:
                break  # the first key of this item
        for below in range(index + 1, len(self.lines)):
            line = self[below]
            if line.blank or line.indent > column:
                continue
            if line.dashes or line.indent < column or line.key is None:
                break
            found.setdefault(line.key, line.value)
        return found


def context_at(lines: Sequence[str], line: int, character: int) -> Context | None:
    """What is being completed at (line, character), or None when the text cannot be followed.
    `lines` are the document's lines; positions are code points."""
    if not 0 <= line < len(lines):
        return None
    full = lines[line]
    before = full[:character]
    if before.strip() == "" and len(before) < len(full.rstrip()):
        return None  # the cursor sits in the indentation of a written line
    reader = _Lines(lines)
    current = parse_line(before)
    if current.blank and before.lstrip().startswith("#"):
        return None
    if current.key is not None and ":" in before[current.content :]:
        # `key: partial` — completing a value
        rest = before[current.content :]
        colon = rest.index(":")
        value_start = current.content + colon + 1
        while value_start < len(before) and before[value_start] in " \t":
            value_start += 1
        path = reader.mapping_path(line, current.content)
        if path is None:
            return None
        return Context(
            Mode.VALUE,
            path,
            before[value_start:],
            value_start,
            current.content,
            key=current.key,
            siblings=reader.siblings(line, current.content),
        )
    column = len(before) if current.blank else current.content
    word = before[column:]
    if _PARTIAL.fullmatch(word) is None:
        return None
    if current.dashes and not current.blank:
        if len(current.dashes) != 1:
            return None
        owner = reader.sequence_owner(line, current.dashes[0], 0)
        if owner is None:
            return None
        path, count = owner
        return Context(Mode.ITEM, (*path, count), word, column, column)
    path = reader.mapping_path(line, column)
    if path is None:
        return None
    return Context(Mode.KEY, path, word, column, column, siblings=reader.siblings(line, column))


def owner_siblings(lines: Sequence[str], line: int, column: int) -> dict[str, str]:
    """The keys of the mapping that holds the mapping at `column` around line `line` (for
    `args:` keys: the expected tool's `name:` next to `args:`)."""
    reader = _Lines(lines)
    for above in range(line - 1, -1, -1):
        parent = reader[above]
        if parent.blank or parent.indent >= column:
            continue
        if parent.key is not None and not parent.value and parent.content < column:
            return {**reader.siblings(above, parent.content), parent.key: ""}
        break
    return {}
