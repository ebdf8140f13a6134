"""Finding a module's file from its dotted name by listing directories, never importing."""

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

from holodeck_lsp.checker.python_source.module_names import top_level_names
from holodeck_lsp.checker.python_source.module_search import (
    ModuleKind,
    ModuleLocation,
    default_search_dirs,
    list_modules,
    search_module,
)


def write(root: Path, relative: str, text: str = "") -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def locate(
    module: str, search_dirs: Sequence[Path], *, use_meta_path: bool = False
) -> ModuleLocation | None:
    return search_module(module, search_dirs, use_meta_path=use_meta_path).location


SENTINEL_INIT = """
    from pathlib import Path
    Path(__file__).with_name("RAN").write_text("imported")
"""


def test_finds_a_plain_module(tmp_path: Path) -> None:
    path = write(tmp_path, "graders.py", "def grade(): ...\n")
    location = locate("graders", [tmp_path])
    assert location is not None
    assert location.kind is ModuleKind.MODULE
    assert location.path == path
    assert location.source_path == path


def test_finds_a_package_and_its_submodules(tmp_path: Path) -> None:
    init = write(tmp_path, "pkg/__init__.py")
    sub = write(tmp_path, "pkg/sub/__init__.py")
    leaf = write(tmp_path, "pkg/sub/leaf.py")
    package = locate("pkg", [tmp_path])
    assert package is not None
    assert (package.kind, package.path, package.search_path) == (
        ModuleKind.PACKAGE,
        init,
        (tmp_path / "pkg",),
    )
    assert package.source_path == init
    assert locate("pkg.sub", [tmp_path]) == locate("pkg.sub", [tmp_path])
    sub_location = locate("pkg.sub", [tmp_path])
    assert sub_location is not None and sub_location.path == sub
    leaf_location = locate("pkg.sub.leaf", [tmp_path])
    assert leaf_location is not None and leaf_location.path == leaf
    assert leaf_location.name == "pkg.sub.leaf"


def test_namespace_packages_work_as_intermediate_packages(tmp_path: Path) -> None:
    leaf = write(tmp_path, "a/b/c.py")
    location = locate("a.b.c", [tmp_path])
    assert location is not None and location.kind is ModuleKind.MODULE and location.path == leaf
    namespace = locate("a.b", [tmp_path])
    assert namespace is not None
    assert namespace.kind is ModuleKind.NAMESPACE
    assert namespace.search_path == (tmp_path / "a" / "b",)
    assert namespace.source_path is None


def test_namespace_portions_span_search_dirs(tmp_path: Path) -> None:
    first, second = tmp_path / "one", tmp_path / "two"
    write(first, "ns/a.py")
    b = write(second, "ns/b.py")
    location = locate("ns.b", [first, second])
    assert location is not None and location.path == b
    namespace = locate("ns", [first, second])
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
    location = locate("graders", [first, second])
    assert location is not None and location.path == in_first


def test_precedence_within_a_directory(tmp_path: Path) -> None:
    # A package directory beats a module file; a module file beats a namespace directory.
    write(tmp_path, "both/__init__.py")
    write(tmp_path, "both.py")
    write(tmp_path, "plain/readme.txt")
    plain = write(tmp_path, "plain.py")
    both = locate("both", [tmp_path])
    assert both is not None and both.kind is ModuleKind.PACKAGE
    location = locate("plain", [tmp_path])
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
def test_compiled_modules_are_found_but_have_no_source(tmp_path: Path, filename: str) -> None:
    write(tmp_path, filename)
    location = locate("fast", [tmp_path])
    assert location is not None
    assert location.kind is ModuleKind.EXTENSION
    assert location.path == tmp_path / filename
    assert location.source_path is None
    child = locate("fast.child", [tmp_path])
    assert child is not None and child.kind is ModuleKind.OPAQUE


def test_compiled_package_init_has_no_source(tmp_path: Path) -> None:
    write(tmp_path, "cpkg/__init__.cpython-311-x86_64-linux-gnu.so")
    location = locate("cpkg", [tmp_path])
    assert location is not None and location.kind is ModuleKind.PACKAGE
    assert location.source_path is None


def test_builtin_modules_win_over_files(tmp_path: Path) -> None:
    write(tmp_path, "sys.py", "x = 1\n")
    location = locate("sys", [tmp_path])
    assert location is not None and location.kind is ModuleKind.BUILTIN
    assert location.source_path is None
    child = locate("sys.anything", [tmp_path])
    assert child is not None and child.kind is ModuleKind.OPAQUE


@pytest.mark.skipif(
    importlib.machinery.FrozenImporter.find_spec("os") is None, reason="os is not frozen here"
)
def test_frozen_modules_count_as_builtin(tmp_path: Path) -> None:
    location = locate("os.path", [tmp_path])
    assert location is not None and location.kind is ModuleKind.OPAQUE


def test_stdlib_source_modules_are_found_on_sys_path(tmp_path: Path) -> None:
    location = locate("json.decoder", default_search_dirs(tmp_path))
    assert location is not None
    assert location.kind is ModuleKind.MODULE
    assert location.path is not None and location.path.name == "decoder.py"


def test_missing_module(tmp_path: Path) -> None:
    assert locate("nowhere_to_be_found", [tmp_path]) is None
    search = search_module("nowhere_to_be_found.sub", [tmp_path])
    assert search.missing == "nowhere_to_be_found"
    assert search.parent is None
    assert search.searched == (tmp_path,)
    assert search.location is None


def test_submodule_of_a_plain_module_is_missing(tmp_path: Path) -> None:
    write(tmp_path, "graders.py")
    search = search_module("graders.sub", [tmp_path])
    assert search.location is None
    assert search.reason is not None and "not a package" in search.reason


@pytest.mark.parametrize("name", ["a..b", ".graders", "graders.", "1abc", ""])
def test_invalid_module_names_are_missing(tmp_path: Path, name: str) -> None:
    assert locate(name, [tmp_path]) is None


def test_file_names_must_match_exactly(tmp_path: Path) -> None:
    write(tmp_path, "Graders.py")
    assert locate("graders", [tmp_path]) is None


def test_lookup_never_runs_package_init(tmp_path: Path) -> None:
    write(tmp_path, "pkg/__init__.py", SENTINEL_INIT)
    write(tmp_path, "pkg/sub.py", "def fn(): ...\n")
    assert locate("pkg.sub", [tmp_path]) is not None
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
    assert locate("magic_editable_mod", [empty]) is None
    location = locate("magic_editable_mod", [empty], use_meta_path=True)
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
