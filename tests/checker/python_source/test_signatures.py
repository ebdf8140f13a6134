"""A top-level function's signature as written, read without importing its file."""

from __future__ import annotations

import textwrap
from pathlib import Path

from holodeck_lsp.checker.python_source.signatures import ParameterKind, function_signature


def write(root: Path, relative: str, text: str = "") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def test_function_signature(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "tools.py",
        '''
        import functools


        @functools.cache
        async def  subtract(a, /, b: int = 1, *args: str, c, d: "str" = 'x', **kw) -> float:
            """Subtract b from a.

            Returns the difference.
            """
            return a - b
        ''',
    )
    signature = function_signature(path, "subtract")
    assert signature is not None
    assert signature.name == "subtract" and signature.path == path
    assert [(p.name, p.kind, p.annotation, p.default) for p in signature.parameters] == [
        ("a", ParameterKind.POSITIONAL_ONLY, None, None),
        ("b", ParameterKind.POSITIONAL_OR_KEYWORD, "int", "1"),
        ("args", ParameterKind.VAR_POSITIONAL, "str", None),
        ("c", ParameterKind.KEYWORD_ONLY, None, None),
        ("d", ParameterKind.KEYWORD_ONLY, '"str"', "'x'"),
        ("kw", ParameterKind.VAR_KEYWORD, None, None),
    ]
    assert signature.returns == "float"
    assert signature.docstring == "Subtract b from a.\n\nReturns the difference."
    assert (signature.line, signature.col, signature.name_col) == (5, 0, 11)
    assert signature.is_async
    assert signature.has_var_keyword
    assert signature.keyword_names == ("b", "c", "d")


def test_simple_signature(tmp_path: Path) -> None:
    path = write(tmp_path, "tools.py", "def add(x: float, y: float = 0.0):\n    return x + y\n")
    signature = function_signature(path, "add")
    assert signature is not None
    assert not signature.has_var_keyword and not signature.is_async
    assert signature.docstring is None and signature.returns is None
    assert signature.keyword_names == ("x", "y")
    assert (signature.line, signature.col, signature.name_col) == (0, 0, 4)


def test_function_signature_follows_blocks_and_aliases(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "tools.py",
        """
        import sys
        if sys.platform == "win32":
            def pick(a): ...
        else:
            def pick(a, b): ...
        def _impl(q): ...
        public = _impl
        class Tool:
            def method(self, z): ...
        CONSTANT = 3
        """,
    )
    pick = function_signature(path, "pick")
    assert pick is not None and [p.name for p in pick.parameters] == ["a", "b"]
    assert pick.col == 4
    public = function_signature(path, "public")
    assert public is not None and public.name == "_impl"
    assert function_signature(path, "Tool") is None
    assert function_signature(path, "method") is None
    assert function_signature(path, "CONSTANT") is None
    assert function_signature(path, "missing") is None


def test_function_signature_of_broken_or_missing_files(tmp_path: Path) -> None:
    assert function_signature(write(tmp_path, "bad.py", "def f(:\n"), "f") is None
    assert function_signature(tmp_path / "absent.py", "f") is None
