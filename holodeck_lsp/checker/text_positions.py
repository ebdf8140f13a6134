"""Line/character positions the way editors count them.

Editors (and LSP) break lines only at `\\n`, `\\r\\n` and `\\r`. The YAML parser also breaks at
NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH SEPARATOR (U+2029), and Python's
`str.splitlines` at even more characters, so positions taken from either would drift by a
line after such a character. Everything we publish goes through `EditorLines`.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from holodeck_lsp.checker.diagnostics import Position, Range

_EDITOR_BREAK = re.compile(r"\r\n|\r|\n")
_YAML_BREAK = re.compile(r"\r\n|[\r\n\x85\u2028\u2029]")
#: Characters that make the YAML parser's line numbers differ from an editor's.
YAML_ONLY_BREAKS = ("\x85", "\u2028", "\u2029")


class _Lines:
    def __init__(self, text: str, breaks: re.Pattern[str]) -> None:
        self.text = text
        self.starts = [0]
        self.ends: list[int] = []
        for match in breaks.finditer(text):
            self.ends.append(match.start())
            self.starts.append(match.end())
        self.ends.append(len(text))

    def position(self, index: int) -> Position:
        index = max(0, min(index, len(self.text)))
        line = bisect_right(self.starts, index) - 1
        return Position(line, min(index, self.ends[line]) - self.starts[line])

    def index(self, position: Position) -> int:
        line = max(0, min(position.line, len(self.starts) - 1))
        return min(self.starts[line] + max(position.character, 0), self.ends[line])


class EditorLines(_Lines):
    """The text's lines as an editor shows them."""

    def __init__(self, text: str) -> None:
        super().__init__(text, _EDITOR_BREAK)

    def clamp(self, where: Range) -> Range:
        """`where` moved inside the text: no line past the last, no character past a line's
        end, start not after end."""
        start = self.position(self.index(where.start))
        end = self.position(self.index(where.end))
        return Range(start, max(start, end))


class YamlLines(_Lines):
    """The text's lines as the YAML parser counts them (its marks use these)."""

    def __init__(self, text: str) -> None:
        super().__init__(text, _YAML_BREAK)


def to_editor_range(where: Range, yaml_lines: YamlLines | None, editor: EditorLines) -> Range:
    """A range in parser coordinates, in editor coordinates and inside the text."""
    if yaml_lines is not None:
        where = Range(
            editor.position(yaml_lines.index(where.start)),
            editor.position(yaml_lines.index(where.end)),
        )
    return editor.clamp(where)
