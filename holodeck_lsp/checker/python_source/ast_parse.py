"""`ast.parse` one thread at a time.

CPython 3.11 keeps the AST constructor's recursion depth in interpreter-wide state, so two
threads turning source into trees at the same moment can fail with `SystemError: AST
constructor recursion depth mismatch` (python/cpython#106905) — seen here when parallel
cases graded in worker threads. The language server parses in its check workers and in
executor threads, so every parse in the project goes through `parse_python`. The lock costs
nothing measurable: parsing holds the GIL anyway.
"""

from __future__ import annotations

import ast
import threading
from typing import Literal, overload

_ONE_AT_A_TIME = threading.Lock()


@overload
def parse_python(source: str, filename: str = ..., mode: Literal["exec"] = ...) -> ast.Module: ...
@overload
def parse_python(source: str, filename: str = ..., *, mode: Literal["eval"]) -> ast.Expression: ...
def parse_python(source: str, filename: str = "<unknown>", mode: str = "exec") -> ast.AST:
    """`ast.parse(source, filename, mode)` under the process-wide lock."""
    with _ONE_AT_A_TIME:
        return ast.parse(source, filename=filename, mode=mode)
