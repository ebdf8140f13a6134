"""Code points <-> client units, only where a line is not ASCII; clamped to the text."""

from __future__ import annotations

from holodeck_lsp.server.documents.positions import (
    UTF8,
    UTF16,
    UTF32,
    PositionConverter,
    choose_encoding,
)

TEXT = "plain: 1\nname: 📈é x\r\nlast"


def test_encoding_choice_prefers_utf32_then_utf16() -> None:
    assert choose_encoding(["utf-8", "utf-32"]) == UTF32
    assert choose_encoding(["utf-8"]) == UTF16
    assert choose_encoding(None) == UTF16


def test_units_per_encoding() -> None:
    # "x" is code point 9 of line 1: 📈 is 2 UTF-16 units / 4 UTF-8 bytes, é 1 / 2.
    assert PositionConverter(TEXT, UTF16).to_client(1, 9) == (1, 10)
    assert PositionConverter(TEXT, UTF8).to_client(1, 9) == (1, 13)
    assert PositionConverter(TEXT, UTF32).to_client(1, 9) == (1, 9)
    assert PositionConverter(TEXT, UTF16).to_client(0, 5) == (0, 5)


def test_round_trip_and_clamping() -> None:
    converter = PositionConverter(TEXT, UTF16)
    for character in range(11):
        assert converter.from_client(*converter.to_client(1, character)) == (1, character)
    assert converter.to_client(1, 99) == (1, 11)  # line end (the \r\n is not part of it)
    assert converter.to_client(9, 3) == (2, 4)  # past the last line: end of text
    assert converter.to_client(-1, 3) == (0, 0)
