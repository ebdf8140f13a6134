"""A module's top-level names and whether each looks callable, read without running it."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from holodeck_lsp.checker.python_source.bindings import Callability
from holodeck_lsp.checker.python_source.module_names import top_level_names


def write(root: Path, relative: str, text: str = "") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def names_of(tmp_path: Path, text: str) -> dict[str, Callability]:
    module = top_level_names(write(tmp_path, "mod.py", text))
    assert module.error is None
    return {name: binding.callability for name, binding in module.bindings.items()}


def test_definitions_are_callable(tmp_path: Path) -> None:
    names = names_of(
        tmp_path,
        """
        import functools

        def plain(): ...
        async def coro(): ...
        class Grader: ...
        @functools.cache
        def decorated(): ...
        lam = lambda x: x
        partial = functools.partial(plain)
        instance = Grader()
        alias = plain
        builtin_alias = len
        """,
    )
    callable_names = ["plain", "coro", "Grader", "decorated", "lam", "partial", "instance"]
    for name in [*callable_names, "alias", "builtin_alias"]:
        assert names[name] is Callability.CALLABLE, name


def test_literals_are_not_callable(tmp_path: Path) -> None:
    names = names_of(
        tmp_path,
        """
        x = 3
        s = "text"
        b = b"bytes"
        f = f"{x}"
        items = [1, 2]
        mapping = {"a": 1}
        pair = (1, 2)
        nothing = None
        negative = -1
        joined = "a" + "b"
        comp = [i for i in range(3)]
        flag = not x
        name = __name__
        again = x
        annotated: int = 4
        """,
    )
    for name, callability in names.items():
        assert callability is Callability.NOT_CALLABLE, name


def test_descriptions_and_positions(tmp_path: Path) -> None:
    path = write(tmp_path, "mod.py", "THRESHOLD = 3\n\n\ndef grade():\n    pass\n")
    module = top_level_names(path)
    threshold = module.bindings["THRESHOLD"]
    assert (threshold.description, threshold.line, threshold.col) == ("int literal", 0, 0)
    grade = module.bindings["grade"]
    assert (grade.description, grade.line, grade.col) == ("function", 3, 0)


def test_columns_count_code_points(tmp_path: Path) -> None:
    module = top_level_names(write(tmp_path, "mod.py", "é = 1; y = 2\n"))
    assert module.bindings["y"].col == 7


def test_imports_are_unknown(tmp_path: Path) -> None:
    names = names_of(
        tmp_path,
        """
        import os
        import os.path as osp
        import xml.dom
        from json import loads
        from . import sibling
        from .helpers import grade as graded
        """,
    )
    assert names == {
        name: Callability.UNKNOWN for name in ("os", "osp", "xml", "loads", "sibling", "graded")
    }


def test_names_bound_in_if_and_try_blocks_count(tmp_path: Path) -> None:
    names = names_of(
        tmp_path,
        """
        import sys
        if sys.version_info >= (3, 11):
            def only_new(): ...
        else:
            LIMIT = 3
        try:
            from fast import speedy
        except ImportError:
            speedy = None
        try:
            import thing
        except ImportError:
            def thing(): ...
        finally:
            cleanup = 1
        with open(__file__) as handle:
            def in_with(): ...
        for index in range(3):
            def in_loop(): ...
        while False:
            SOMETIMES = 1
        """,
    )
    assert names["only_new"] is Callability.CALLABLE
    assert names["LIMIT"] is Callability.NOT_CALLABLE
    assert names["speedy"] is Callability.UNKNOWN  # an import or None
    assert names["thing"] is Callability.UNKNOWN
    assert names["cleanup"] is Callability.NOT_CALLABLE
    assert names["in_with"] is Callability.CALLABLE
    assert names["handle"] is Callability.UNKNOWN
    assert names["in_loop"] is Callability.CALLABLE
    assert names["SOMETIMES"] is Callability.NOT_CALLABLE


def test_later_bindings_override_earlier_ones(tmp_path: Path) -> None:
    names = names_of(
        tmp_path,
        """
        def grade(): ...
        grade = 3
        def other(): ...
        x = 1
        x = other
        gone = 1
        del gone
        """,
    )
    assert names["grade"] is Callability.NOT_CALLABLE
    assert names["x"] is Callability.CALLABLE
    assert "gone" not in names


def test_annotation_without_value_binds_nothing(tmp_path: Path) -> None:
    names = names_of(tmp_path, "declared: int\n")
    assert "declared" not in names


def test_unpacking(tmp_path: Path) -> None:
    names = names_of(
        tmp_path,
        """
        def f(): ...
        a, b = 1, f
        c, d = something()
        first, *rest = something()
        """,
    )
    assert names["a"] is Callability.NOT_CALLABLE
    assert names["b"] is Callability.CALLABLE
    assert names["c"] is Callability.UNKNOWN and names["d"] is Callability.UNKNOWN
    assert names["rest"] is Callability.NOT_CALLABLE


@pytest.mark.parametrize(
    ("text", "reason"),
    [
        ("def __getattr__(name): ...\n", "__getattr__"),
        ("from helpers import *\n", "import *"),
        ("globals()['made'] = 1\n", "globals()"),
        ("globals().update(made=1)\n", "globals()"),
        ("import sys\nsys.modules[__name__] = object()\n", "sys.modules"),
        ("try:\n    from fast import *\nexcept ImportError:\n    pass\n", "import *"),
    ],
)
def test_open_ended_modules(tmp_path: Path, text: str, reason: str) -> None:
    module = top_level_names(write(tmp_path, "mod.py", text))
    assert module.open_ended_reason is not None and reason in module.open_ended_reason
    binding = module.lookup("anything_at_all")
    assert binding is not None and binding.callability is Callability.UNKNOWN


def test_lookup(tmp_path: Path) -> None:
    path = write(
        tmp_path,
        "mod.py",
        """
        def grade(): ...
        def setup():
            global late
            late = grade
        """,
    )
    module = top_level_names(path)
    assert module.error is None and module.open_ended_reason is None
    found = module.lookup("grade")
    assert found is not None and found.callability is Callability.CALLABLE
    assert module.lookup("missing") is None
    late = module.lookup("late")
    assert late is not None and late.callability is Callability.UNKNOWN
    name = module.lookup("__name__")
    assert name is not None and name.callability is Callability.NOT_CALLABLE
    dunder = module.lookup("__dict__")
    assert dunder is not None and dunder.callability is Callability.UNKNOWN


def test_syntax_errors_are_reported_not_raised(tmp_path: Path) -> None:
    module = top_level_names(write(tmp_path, "mod.py", "def broken(:\n    pass\n"))
    assert module.error is not None and "syntax error at line 1" in module.error
    binding = module.lookup("broken")
    assert binding is not None and binding.callability is Callability.UNKNOWN


def test_unreadable_files_are_reported(tmp_path: Path) -> None:
    module = top_level_names(tmp_path / "missing.py")
    assert module.error is not None and "cannot read" in module.error
    assert top_level_names(write(tmp_path, "bad.py", "")).error is None
    (tmp_path / "bad.py").write_bytes(b"# -*- coding: no-such-codec -*-\nx = 1\n")
    assert top_level_names(tmp_path / "bad.py").error is not None


def test_coding_cookie_is_honoured(tmp_path: Path) -> None:
    path = tmp_path / "latin.py"
    path.write_bytes("# -*- coding: latin-1 -*-\nname = 'café'\ndef f(): ...\n".encode("latin-1"))
    module = top_level_names(path)
    assert module.error is None and set(module.bindings) == {"name", "f"}


def test_results_follow_file_changes(tmp_path: Path) -> None:
    path = write(tmp_path, "mod.py", "def one(): ...\n")
    assert set(top_level_names(path).bindings) == {"one"}
    assert top_level_names(path) is top_level_names(path)  # cached
    path.write_text("def one(): ...\ndef two(): ...\n", encoding="utf-8")
    assert set(top_level_names(path).bindings) == {"one", "two"}
