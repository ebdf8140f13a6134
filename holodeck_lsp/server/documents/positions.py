"""Our positions (characters counted in Unicode code points) in the client's units, and back.

The checker counts characters in code points; LSP clients count UTF-16 code units unless they
negotiate otherwise. We prefer `utf-32` (the same as code points: nothing to convert) when the
client offers it and fall back to `utf-16`, which every client must support. (`utf-8` is
converted correctly too, but never chosen: it buys nothing over UTF-16 for us.)

Conversion only touches lines that contain non-ASCII characters — on an ASCII line every
encoding counts the same — so an ASCII document costs one `str.isascii()` call.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

UTF8: Final = "utf-8"
UTF16: Final = "utf-16"
UTF32: Final = "utf-32"

_EDITOR_BREAK = re.compile(r"\r\n|\r|\n")


def choose_encoding(offered: Sequence[str] | None) -> str:
    """The position encoding to negotiate, given the client's `general.positionEncodings`."""
    return UTF32 if offered and UTF32 in offered else UTF16


def _units(text: str, encoding: str) -> int:
    """Length of `text` in `encoding` code units."""
    if encoding == UTF16:
        # One unit per code point, two for those outside the Basic Multilingual Plane.
        return len(text) + sum(1 for char in text if ord(char) > 0xFFFF)
    if encoding == UTF8:
        return len(text.encode("utf-8", "surrogatepass"))
    return len(text)


class PositionConverter:
    """Converts positions within one text between code points and the client's units."""

    def __init__(self, text: str, encoding: str) -> None:
        self.encoding = encoding
        self._ascii = text.isascii()
        self._lines: list[str] | None = None
        self._text = text

    @property
    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = _EDITOR_BREAK.split(self._text)
        return self._lines

    def clamp(self, line: int, character: int) -> tuple[int, int]:
        """`(line, character)` (code points) moved inside the text."""
        lines = self.lines
        if line < 0:
            return 0, 0
        if line >= len(lines):
            return len(lines) - 1, len(lines[-1])
        return line, max(0, min(character, len(lines[line])))

    def to_client(self, line: int, character: int) -> tuple[int, int]:
        """A code-point position (clamped to the text) in the client's units."""
        line, character = self.clamp(line, character)
        if self.encoding == UTF32 or self._ascii:
            return line, character
        text = self.lines[line]
        if text.isascii():
            return line, character
        return line, _units(text[:character], self.encoding)

    def from_client(self, line: int, character: int) -> tuple[int, int]:
        """A position in the client's units as code points (clamped to the text)."""
        line, _ = self.clamp(line, 0)
        text = self.lines[line]
        if self.encoding == UTF32 or self._ascii or text.isascii():
            return self.clamp(line, character)
        units = 0
        for index, char in enumerate(text):
            if units >= character:
                return line, index
            units += _units(char, self.encoding)
        return line, len(text)
