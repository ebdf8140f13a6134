"""Reading and parsing a Python file once per version of it.

The grader checks, completion and hover ask about the same few files on every keystroke, so
parses are cached by (path, mtime_ns, size): an edited file is read again, an unchanged one
never is. Failures are returned as text, never raised — a broken `tools.py` is a diagnostic.
"""

from __future__ import annotations

import ast
import io
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from holodeck_lsp.checker.file_reading import read_file_bytes
from holodeck_lsp.checker.python_source.ast_parse import parse_python


@dataclass(frozen=True, slots=True)
class ParsedSource:
    """A file's decoded text and syntax tree; `tree` is None and `error` says why when the file
    could not be decoded or parsed."""

    source: str
    tree: ast.Module | None
    error: str | None


#: (path, mtime_ns, size): the cache key that changes whenever the file is rewritten.
FileKey = tuple[Path, int, int]


def file_key(path: Path) -> FileKey | str:
    """The cache key of `path`, or why the file cannot be read."""
    try:
        stat = path.stat()
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    return (path, stat.st_mtime_ns, stat.st_size)


@lru_cache(maxsize=128)
def parse_file(path: Path, mtime_ns: int, size: int) -> ParsedSource:
    """Parse `path` at the version `file_key` named (callers pass the key's parts)."""
    del mtime_ns, size  # part of the cache key only
    try:
        data = read_file_bytes(path)
    except OSError as exc:
        return ParsedSource("", None, f"cannot read {path}: {exc.strerror or exc}")
    try:
        # Honour a PEP 263 coding cookie, as the interpreter would.
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        source = data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return ParsedSource("", None, f"cannot decode {path}: {exc}")
    try:
        return ParsedSource(source, parse_python(source, str(path)), None)
    except SyntaxError as exc:
        return ParsedSource(source, None, f"syntax error at line {exc.lineno}: {exc.msg}")
    except (ValueError, RecursionError, MemoryError) as exc:
        return ParsedSource(source, None, f"cannot parse {path}: {type(exc).__name__}: {exc}")


def char_col(source_lines: Sequence[str], lineno: int, byte_col: int) -> int:
    """Convert ast's UTF-8 byte column on 1-based `lineno` to a code-point column (what the
    LSP's `Position` counts)."""
    if not 0 < lineno <= len(source_lines):
        return byte_col
    line = source_lines[lineno - 1]
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))
