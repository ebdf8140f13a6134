"""Static facts about Python source: module lookup, top-level names, function signatures."""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import sys
import textwrap
from collections.abc import Sequence
from pathlib import Path
from types import ModuleType

import pytest

from holodeck_lsp.config.python_source import (
    Callability,
    ModuleKind,
    ParameterKind,
    default_search_dirs,
    find_module_file,
    function_signature,
    list_modules,
    search_module,
    top_level_names,
)


def write(root: Path, relative: str, text: str = "") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


SENTINEL_INIT = """
    from pathlib import Path
    Path(__file__).with_name("RAN").write_text("imported")
"""


# ------------------------------------------------------------------------------------------
# find_module_file / search_module
# ------------------------------------------------------------------------------------------


def test_finds_a_plain_module(tmp_path: Path) -> None:
    path = write(tmp_path, "graders.py", "def grade(): ...\n")
    location = find_module_file("graders", [tmp_path])
    assert location is not None
    assert location.kind is ModuleKind.MODULE
    assert location.path == path
    assert location.source_path == path
    assert location.inspectable


def test_finds_a_package_and_its_submodules(tmp_path: Path) -> None:
    init = write(tmp_path, "pkg/__init__.py")
    sub = write(tmp_path, "pkg/sub/__init__.py")
    leaf = write(tmp_path, "pkg/sub/leaf.py")
    package = find_module_file("pkg", [tmp_path])
    assert package is not None
    assert (package.kind, package.path, package.search_path) == (
        ModuleKind.PACKAGE,
        init,
        (tmp_path / "pkg",),
    )
    assert package.source_path == init
    assert find_module_file("pkg.sub", [tmp_path]) == find_module_file("pkg.sub", [tmp_path])
    sub_location = find_module_file("pkg.sub", [tmp_path])
    assert sub_location is not None and sub_location.path == sub
    leaf_location = find_module_file("pkg.sub.leaf", [tmp_path])
    assert leaf_location is not None and leaf_location.path == leaf
    assert leaf_location.name == "pkg.sub.leaf"


def test_namespace_packages_work_as_intermediate_packages(tmp_path: Path) -> None:
    leaf = write(tmp_path, "a/b/c.py")
    location = find_module_file("a.b.c", [tmp_path])
    assert location is not None and location.kind is ModuleKind.MODULE and location.path == leaf
    namespace = find_module_file("a.b", [tmp_path])
    assert namespace is not None
    assert namespace.kind is ModuleKind.NAMESPACE
    assert namespace.search_path == (tmp_path / "a" / "b",)
    assert namespace.source_path is None
    assert namespace.inspectable  # its attributes are known: none


def test_namespace_portions_span_search_dirs(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    write(first, "ns/a.py")
    b = write(second, "ns/b.py")
    location = find_module_file("ns.b", [first, second])
    assert location is not None and location.path == b
    namespace = find_module_file("ns", [first, second])
    assert namespace is not None
    assert namespace.search_path == (first / "ns", second / "ns")


def test_a_regular_package_hides_later_directories_of_the_same_name(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    write(first, "pkg/__init__.py")
    write(second, "pkg/extra.py")
    search = search_module("pkg.extra", [first, second])
    assert search.location is None
    assert search.missing == "pkg.extra"
    assert search.parent is not None and search.parent.name == "pkg"
    assert search.searched == (first / "pkg",)


def test_first_search_dir_wins(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    write(second, "graders.py")
    in_first = write(first, "graders.py")
    location = find_module_file("graders", [first, second])
    assert location is not None and location.path == in_first


def test_precedence_within_a_directory(tmp_path: Path) -> None:
    # A package directory beats a module file; a module file beats a namespace directory.
    write(tmp_path, "both/__init__.py")
    write(tmp_path, "both.py")
    write(tmp_path, "plain/readme.txt")
    plain = write(tmp_path, "plain.py")
    both = find_module_file("both", [tmp_path])
    assert both is not None and both.kind is ModuleKind.PACKAGE
    location = find_module_file("plain", [tmp_path])
    assert location is not None and location.path == plain


@pytest.mark.parametrize(
    "filename",
    [
        "fast.cpython-311-x86_64-linux-gnu.so",
        "fast.cpython-312-darwin.so",
        "fast.abi3.so",
        "fast.so",
        "fast.pyd",
        "fast.cp311-win_amd64.pyd",
        "fast.pyc",
    ],
)
def test_compiled_modules_are_found_but_not_inspectable(tmp_path: Path, filename: str) -> None:
    write(tmp_path, filename)
    location = find_module_file("fast", [tmp_path])
    assert location is not None
    assert location.kind is ModuleKind.EXTENSION
    assert location.path == tmp_path / filename
    assert location.source_path is None
    assert not location.inspectable
    child = find_module_file("fast.child", [tmp_path])
    assert child is not None and child.kind is ModuleKind.OPAQUE


def test_compiled_package_init_is_not_inspectable(tmp_path: Path) -> None:
    write(tmp_path, "cpkg/__init__.cpython-311-x86_64-linux-gnu.so")
    location = find_module_file("cpkg", [tmp_path])
    assert location is not None and location.kind is ModuleKind.PACKAGE
    assert not location.inspectable


def test_builtin_modules_win_over_files(tmp_path: Path) -> None:
    write(tmp_path, "sys.py", "x = 1\n")
    location = find_module_file("sys", [tmp_path])
    assert location is not None and location.kind is ModuleKind.BUILTIN
    assert not location.inspectable
    child = find_module_file("sys.anything", [tmp_path])
    assert child is not None and child.kind is ModuleKind.OPAQUE


@pytest.mark.skipif(
    importlib.machinery.FrozenImporter.find_spec("os") is None, reason="os is not frozen here"
)
def test_frozen_modules_count_as_builtin(tmp_path: Path) -> None:
    location = find_module_file("os.path", [tmp_path])
    assert location is not None and location.kind is ModuleKind.OPAQUE


def test_stdlib_source_modules_are_found_on_sys_path(tmp_path: Path) -> None:
    location = find_module_file("json.decoder", default_search_dirs(tmp_path))
    assert location is not None
    assert location.kind is ModuleKind.MODULE
    assert location.path is not None and location.path.name == "decoder.py"


def test_missing_module(tmp_path: Path) -> None:
    assert find_module_file("nowhere_to_be_found", [tmp_path]) is None
    search = search_module("nowhere_to_be_found.sub", [tmp_path])
    assert search.missing == "nowhere_to_be_found"
    assert search.parent is None
    assert search.searched == (tmp_path,)
    assert not search.found


def test_submodule_of_a_plain_module_is_missing(tmp_path: Path) -> None:
    write(tmp_path, "graders.py")
    search = search_module("graders.sub", [tmp_path])
    assert search.location is None
    assert search.reason is not None and "not a package" in search.reason


@pytest.mark.parametrize("name", ["a..b", ".graders", "graders.", "1abc", ""])
def test_invalid_module_names_are_missing(tmp_path: Path, name: str) -> None:
    assert find_module_file(name, [tmp_path]) is None


def test_file_names_must_match_exactly(tmp_path: Path) -> None:
    write(tmp_path, "Graders.py")
    assert find_module_file("graders", [tmp_path]) is None


def test_lookup_never_runs_package_init(tmp_path: Path) -> None:
    write(tmp_path, "pkg/__init__.py", SENTINEL_INIT)
    write(tmp_path, "pkg/sub.py", "def fn(): ...\n")
    assert find_module_file("pkg.sub", [tmp_path]) is not None
    assert top_level_names(tmp_path / "pkg" / "__init__.py").error is None
    assert not (tmp_path / "pkg" / "RAN").exists()
    assert "pkg" not in sys.modules


def test_meta_path_fallback_for_top_level_names(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hidden = write(tmp_path, "elsewhere/magic_editable_mod.py", "def fn(): ...\n")

    class Finder:
        @staticmethod
        def find_spec(
            name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
        ) -> importlib.machinery.ModuleSpec | None:
            if name == "magic_editable_mod":
                return importlib.util.spec_from_file_location(name, hidden)
            return None

    monkeypatch.setattr(sys, "meta_path", [*sys.meta_path, Finder])
    empty = tmp_path / "empty"
    empty.mkdir()
    assert find_module_file("magic_editable_mod", [empty]) is None
    location = find_module_file("magic_editable_mod", [empty], use_meta_path=True)
    assert location is not None
    assert location.kind is ModuleKind.MODULE and location.path == hidden


def test_default_search_dirs(tmp_path: Path) -> None:
    dirs = default_search_dirs(tmp_path)
    assert dirs[0] == tmp_path
    assert all(d.is_dir() for d in dirs)
    assert Path("") not in dirs
    stdlib = Path(os.__file__).parent
    assert stdlib in dirs


def test_list_modules(tmp_path: Path) -> None:
    write(tmp_path, "graders.py")
    write(tmp_path, "pkg/__init__.py")
    write(tmp_path, "ns/x.py")
    write(tmp_path, "fast.cpython-311-x86_64-linux-gnu.so")
    write(tmp_path, "not-a-module.py")
    write(tmp_path, "a.b.py")
    write(tmp_path, "notes.txt")
    assert list_modules(tmp_path) == ["fast", "graders", "ns", "pkg"]


# ------------------------------------------------------------------------------------------
# top_level_names
# ------------------------------------------------------------------------------------------


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
    assert module.open_ended
    assert module.open_ended_reason is not None and reason in module.open_ended_reason
    assert not module.verifiable
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
    assert module.verifiable
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
    assert not module.verifiable
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


# ------------------------------------------------------------------------------------------
# function_signature
# ------------------------------------------------------------------------------------------


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
    assert signature.decorators == ("functools.cache",)
    assert signature.has_var_positional and signature.has_var_keyword
    assert signature.keyword_names == ("b", "c", "d")
    assert signature.accepts_keyword("anything")


def test_simple_signature(tmp_path: Path) -> None:
    path = write(tmp_path, "tools.py", "def add(x: float, y: float = 0.0):\n    return x + y\n")
    signature = function_signature(path, "add")
    assert signature is not None
    assert not signature.has_var_keyword and not signature.has_var_positional
    assert signature.docstring is None and signature.returns is None
    assert signature.accepts_keyword("y") and not signature.accepts_keyword("z")
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
