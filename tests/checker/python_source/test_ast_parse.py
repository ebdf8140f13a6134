"""checker/python_source/ast_parse.py: threads parsing at once never see CPython 3.11's
"AST constructor recursion depth mismatch". The race needs a thread switch in the middle of
building a tree: a collection running a finalizer that releases the GIL gives one, as a
grader's or the server's other threads do. With plain `ast.parse` this workload fails a few
times per thousand parses on 3.11 (measured while writing this test)."""

from __future__ import annotations

import ast
import sys
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor

import pytest

from holodeck_lsp.checker.python_source.ast_parse import parse_python

SOURCE = "f(" + ", ".join(f"[{i}, {{'a': ({i}, 'x')}}]" for i in range(100)) + ")"


class _Cycle:
    """Garbage only a collection frees; freeing it lets another thread run."""

    def __init__(self) -> None:
        self.me = self

    def __del__(self) -> None:
        time.sleep(0)


def _parse_in_threads(parse: Callable[[str], object]) -> list[BaseException]:
    errors: list[BaseException] = []

    def work(_: int) -> None:
        for _ in range(300):
            _Cycle()
            try:
                parse(SOURCE)
            except SystemError as exc:
                errors.append(exc)

    with ThreadPoolExecutor(4) as pool:
        list(pool.map(work, range(4)))
    return errors


@pytest.fixture
def switch_often() -> object:
    before = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    yield
    sys.setswitchinterval(before)


@pytest.mark.usefixtures("switch_often")
def test_parallel_parses_all_succeed() -> None:
    assert _parse_in_threads(lambda text: parse_python(text, mode="eval")) == []


def test_it_is_ast_parse() -> None:
    tree = parse_python("x = 1\n", "file.py")
    assert isinstance(tree, ast.Module)
    assert ast.dump(tree) == ast.dump(ast.parse("x = 1\n"))
    with pytest.raises(SyntaxError) as raised:
        parse_python("def (:\n", "bad.py")
    assert raised.value.filename == "bad.py"
