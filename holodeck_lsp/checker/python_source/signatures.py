"""A top-level function's signature as written in its file: what hover shows for a tool or
grader, and what tool-call `args:` are checked against, without importing the file."""

from __future__ import annotations

import ast
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from enum import StrEnum
from functools import lru_cache
from pathlib import Path

from holodeck_lsp.checker.python_source.parsing import char_col, file_key, parse_file


class ParameterKind(StrEnum):
    """The kinds of `inspect.Parameter`, by name."""

    POSITIONAL_ONLY = "positional_only"
    POSITIONAL_OR_KEYWORD = "positional_or_keyword"
    VAR_POSITIONAL = "var_positional"
    KEYWORD_ONLY = "keyword_only"
    VAR_KEYWORD = "var_keyword"


@dataclass(frozen=True, slots=True)
class Parameter:
    """One parameter; `annotation` and `default` are source text as written (None if absent)."""

    name: str
    kind: ParameterKind
    annotation: str | None = None
    default: str | None = None


@dataclass(frozen=True, slots=True)
class FunctionSignature:
    """A top-level function's signature as written. `line` is the 0-based line of the `def`
    keyword (decorators come before it), `col` its column; `name_col` is the column of the
    function's name on that line."""

    name: str
    path: Path
    parameters: tuple[Parameter, ...]
    returns: str | None
    docstring: str | None
    line: int
    col: int
    name_col: int
    is_async: bool = False

    @property
    def has_var_keyword(self) -> bool:
        """Whether a `**kwargs` parameter accepts any keyword."""
        return any(p.kind is ParameterKind.VAR_KEYWORD for p in self.parameters)

    @property
    def keyword_names(self) -> tuple[str, ...]:
        """The parameters that can be passed by keyword (as a tool call's arguments are)."""
        keywordable = (ParameterKind.POSITIONAL_OR_KEYWORD, ParameterKind.KEYWORD_ONLY)
        return tuple(p.name for p in self.parameters if p.kind in keywordable)


_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_SourceText = Callable[[ast.expr | None], str | None]
_MAX_ALIAS_DEPTH = 8


def function_signature(path: Path, name: str) -> FunctionSignature | None:
    """The signature of top-level function `name` in `path`, or None when there is no such
    function (or the file cannot be parsed). Definitions inside top-level `if`/`try` blocks
    count (the last one in the file wins); a plain alias `name = other_function` is followed.
    """
    key = file_key(path)
    if isinstance(key, str):
        return None
    return _signature_cached(*key, name)


@lru_cache(maxsize=512)
def _signature_cached(path: Path, mtime_ns: int, size: int, name: str) -> FunctionSignature | None:
    # Keyed like parse_file: an edited tools.py is read again, an unchanged one never is.
    parsed = parse_file(path, mtime_ns, size)
    if parsed.tree is None:
        return None
    node = _find_function(parsed.tree, name)
    if node is None:
        return None
    return _signature(path, parsed.source, node)


def _find_function(tree: ast.Module, name: str) -> _FunctionNode | None:
    for _ in range(_MAX_ALIAS_DEPTH):
        definition = _last_definition(tree.body, name)
        if isinstance(definition, ast.FunctionDef | ast.AsyncFunctionDef):
            return definition
        if isinstance(definition, ast.Assign) and isinstance(definition.value, ast.Name):
            name = definition.value.id
            continue
        return None
    return None


def _last_definition(statements: Iterable[ast.stmt], name: str) -> ast.stmt | None:
    """The last top-level statement (looking into compound blocks, not into functions or
    classes) that binds `name` by `def`, `class` or plain assignment."""
    found: ast.stmt | None = None
    for node in statements:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            if node.name == name:
                found = node
        elif isinstance(node, ast.Assign):
            if any(t.id == name for t in node.targets if isinstance(t, ast.Name)):
                found = node
        else:
            for block in _blocks(node):
                found = _last_definition(block, name) or found
    return found


def _blocks(node: ast.stmt) -> list[list[ast.stmt]]:
    if isinstance(node, ast.If | ast.For | ast.AsyncFor | ast.While):
        return [node.body, node.orelse]
    if isinstance(node, ast.With | ast.AsyncWith):
        return [node.body]
    if isinstance(node, ast.Try | ast.TryStar):
        return [node.body, *(h.body for h in node.handlers), node.orelse, node.finalbody]
    if isinstance(node, ast.Match):
        return [case.body for case in node.cases]
    return []


def _signature(path: Path, source: str, node: _FunctionNode) -> FunctionSignature:
    lines = source.splitlines()
    col = char_col(lines, node.lineno, node.col_offset)
    line_text = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    match = re.compile(r"def\s+" + re.escape(node.name) + r"\b").search(line_text, col)
    name_col = match.end() - len(node.name) if match else col

    def text(expr: ast.expr | None) -> str | None:
        if expr is None:
            return None
        return _segment(_source_lines(source), expr) or ast.unparse(expr)

    return FunctionSignature(
        name=node.name,
        path=path,
        parameters=_parameters(node.args, text),
        returns=text(node.returns),
        docstring=ast.get_docstring(node),
        line=node.lineno - 1,
        col=col,
        name_col=name_col,
        is_async=isinstance(node, ast.AsyncFunctionDef),
    )


@lru_cache(maxsize=8)
def _source_lines(source: str) -> tuple[str, ...]:
    """The lines as `ast` counts them (\\r\\n, \\r, \\n; not form feeds), ends kept: split
    once per file. `ast.get_source_segment` splits the whole file on every call, which made a
    tools.py of 128 functions (an imported BFCL suite) take seconds to check."""
    lines: list[str] = []
    start = 0
    for end in _LINE_END.finditer(source):
        lines.append(source[start : end.end()])
        start = end.end()
    if start < len(source):
        lines.append(source[start:])
    return tuple(lines)


_LINE_END = re.compile(r"\r\n|\r|\n")


def _segment(lines: tuple[str, ...], node: ast.expr) -> str | None:
    """`ast.get_source_segment` on pre-split lines (columns are UTF-8 byte offsets)."""
    end_line, end_col = node.end_lineno, node.end_col_offset
    if end_line is None or end_col is None or end_line > len(lines):
        return None
    first, last = node.lineno - 1, end_line - 1
    if first == last:
        return lines[first].encode()[node.col_offset : end_col].decode()
    head = lines[first].encode()[node.col_offset :].decode()
    tail = lines[last].encode()[:end_col].decode()
    return head + "".join(lines[first + 1 : last]) + tail


def _parameters(args: ast.arguments, text: _SourceText) -> tuple[Parameter, ...]:
    positional = [*args.posonlyargs, *args.args]
    # `defaults` belong to the last positional parameters.
    defaults: list[ast.expr | None] = [None] * (len(positional) - len(args.defaults))
    defaults += args.defaults
    params: list[Parameter] = []
    for index, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        kind = (
            ParameterKind.POSITIONAL_ONLY
            if index < len(args.posonlyargs)
            else ParameterKind.POSITIONAL_OR_KEYWORD
        )
        params.append(Parameter(arg.arg, kind, text(arg.annotation), text(default)))
    if args.vararg is not None:
        params.append(
            Parameter(args.vararg.arg, ParameterKind.VAR_POSITIONAL, text(args.vararg.annotation))
        )
    for arg, kw_default in zip(args.kwonlyargs, args.kw_defaults, strict=True):
        params.append(
            Parameter(arg.arg, ParameterKind.KEYWORD_ONLY, text(arg.annotation), text(kw_default))
        )
    if args.kwarg is not None:
        params.append(
            Parameter(args.kwarg.arg, ParameterKind.VAR_KEYWORD, text(args.kwarg.annotation))
        )
    return tuple(params)
