"""Go to definition through a thin tool wrapper: a function tool whose body says
`# definition: <file> <Class>.<method>` (or `<file> <function>`) only forwards the call, so the
definition the user wants is that method. `import bfcl` writes such lines in tools.py, one
per BFCL method (docs/importing-bfcl.md). Read statically, never imported."""

from __future__ import annotations

import ast
import re
from pathlib import Path

from holodeck_lsp.checker.file_reading import read_file_text
from holodeck_lsp.checker.python_source.ast_parse import parse_python

_LINE = re.compile(r"^\s*#\s*definition:\s*(\S+)\s+([A-Za-z_][\w.]*)\s*$")


def delegated(path: Path, def_line: int) -> tuple[Path, int, int, int] | None:
    """The method the function defined at `def_line` (0-based) of `path` names in its body's
    `# definition:` line: (file, line, first column, last column) of the method's name."""
    lines = _read(path).splitlines()
    for text in lines[def_line + 1 :]:
        if text and not text[0].isspace():  # the next top-level statement: the body is over
            break
        match = _LINE.match(text)
        if match is not None:
            target = (path.parent / match.group(1)).resolve()
            return _find(target, match.group(2).split("."))
    return None


def _find(path: Path, names: list[str]) -> tuple[Path, int, int, int] | None:
    try:
        tree = parse_python(_read(path))
    except (SyntaxError, ValueError):
        return None
    body: list[ast.stmt] = tree.body
    found: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef | None = None
    for name in names:
        found = next(
            (
                node
                for node in body
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef)
                and node.name == name
            ),
            None,
        )
        if found is None:
            return None
        body = found.body
    if found is None:
        return None
    line = found.lineno - 1
    text = _read(path).splitlines()[line]
    column = text.find(found.name, found.col_offset)
    return path, line, column, column + len(found.name)


def _read(path: Path) -> str:
    try:
        return read_file_text(path, "utf-8-sig")
    except (OSError, UnicodeDecodeError):
        return ""
