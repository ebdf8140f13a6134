"""Reading and parsing a Python file once per version of it; failures as text, never raised."""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.checker.python_source.parsing import ParsedSource, char_col, file_key, parse_file


def parsed(path: Path) -> ParsedSource:
    key = file_key(path)
    assert not isinstance(key, str), key
    return parse_file(*key)


def test_a_file_is_parsed_once_per_version(tmp_path: Path) -> None:
    path = tmp_path / "mod.py"
    path.write_text("x = 1\n", encoding="utf-8")
    first = parsed(path)
    assert first.error is None and first.tree is not None and first.source == "x = 1\n"
    assert parsed(path) is first
    path.write_text("x = 1\ny = 2\n", encoding="utf-8")
    again = parsed(path)
    assert again is not first and again.source == "x = 1\ny = 2\n"


def test_failures_are_described(tmp_path: Path) -> None:
    assert "cannot read" in str(file_key(tmp_path / "absent.py"))
    broken = tmp_path / "broken.py"
    broken.write_text("def f(:\n", encoding="utf-8")
    result = parsed(broken)
    assert result.tree is None and result.error == "syntax error at line 1: invalid syntax"
    assert result.source == "def f(:\n"  # kept: positions in it are still meaningful
    codec = tmp_path / "codec.py"
    codec.write_bytes(b"# -*- coding: no-such-codec -*-\nx = 1\n")
    decoded = parsed(codec)
    assert decoded.tree is None and decoded.error is not None and "cannot decode" in decoded.error


def test_coding_cookie_is_honoured(tmp_path: Path) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes("# -*- coding: latin-1 -*-\nname = 'café'\n".encode("latin-1"))
    assert "café" in parsed(path).source


def test_columns_are_code_points() -> None:
    lines = ["é = 1; y = 2"]
    assert char_col(lines, 1, len("é = 1; ".encode())) == 7
    assert char_col(lines, 5, 3) == 3  # out of range: unchanged
