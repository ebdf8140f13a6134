"""Finding a module's file the way Python's import system would, by listing directories only.

Nothing here imports or runs the code it finds: the editor opens untrusted repositories, and
finding `pkg.sub` through `importlib` would run `pkg/__init__.py`.
"""

from __future__ import annotations

import importlib.machinery
import importlib.util
import os
import re
import sys
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path


class ModuleKind(StrEnum):
    """What a module name resolved to."""

    MODULE = "module"  # a single `.py` file
    PACKAGE = "package"  # a directory with `__init__` (source or compiled)
    NAMESPACE = "namespace"  # directories without `__init__` (PEP 420)
    EXTENSION = "extension"  # compiled: `.so`, `.pyd`, or a sourceless `.pyc`
    BUILTIN = "builtin"  # compiled into the interpreter, or frozen
    OPAQUE = "opaque"  # below an extension/builtin module: exists only if its import makes it


@dataclass(frozen=True, slots=True)
class ModuleLocation:
    """Where a module was found.

    `path` is the module's file (the `.py`, the package's `__init__`, the extension), or for a
    namespace package its first directory; None for builtin and opaque modules. `search_path`
    is the package's `__path__`: the directories its submodules are looked up in.
    """

    name: str
    kind: ModuleKind
    path: Path | None = None
    search_path: tuple[Path, ...] = ()

    @property
    def source_path(self) -> Path | None:
        """The `.py` file whose top-level names are the module's attributes, if there is one."""
        if self.kind in (ModuleKind.MODULE, ModuleKind.PACKAGE) and self.path is not None:
            return self.path if self.path.suffix == ".py" else None
        return None


@dataclass(frozen=True, slots=True)
class ModuleSearch:
    """The outcome of looking a dotted module name up, with enough detail for a good message.

    When the module is missing, `missing` is the first dotted prefix that could not be found,
    `parent` the package it was looked for in (None at top level), `searched` the directories
    that were looked in, and `reason` a sentence for the special cases (e.g. "'graders' is a
    module, not a package").
    """

    module: str
    location: ModuleLocation | None
    missing: str | None = None
    parent: ModuleLocation | None = None
    searched: tuple[Path, ...] = ()
    reason: str | None = None


# Compiled modules are recognised generously (any ABI tag, `.pyd` too) because the LSP's Python
# is not necessarily the one HoloDeck runs with: a `.so` built for another version is still
# "found, cannot be inspected", never "missing".
_EXTENSION_FILE = re.compile(r"^(?P<stem>[^.]+)(?:\.[^.]+)?\.(?:so|pyd)$")
_SOURCELESS_SUFFIX = ".pyc"


def default_search_dirs(agent_dir: Path) -> list[Path]:
    """Where graders are looked for by default: the agent's folder first (HoloDeck inserts it at
    the front of `sys.path`), then every entry of *this* process's `sys.path` that is a
    directory. The empty entry (the current directory) is skipped because the LSP's working
    directory has nothing to do with the agent. Packages installed only in the environment
    HoloDeck runs with are not visible here; pass explicit search dirs for those.
    """
    dirs = [agent_dir]
    for entry in sys.path:
        if entry and os.path.isdir(entry) and Path(entry) not in dirs:
            dirs.append(Path(entry))
    return dirs


def search_module(
    module: str, search_dirs: Sequence[Path], *, use_meta_path: bool = False
) -> ModuleSearch:
    """Look `a.b.c` up the way the import system does, but by reading directories only.

    The top-level name is checked against builtin and frozen modules first (they win over any
    file, as in `sys.meta_path`), then looked for in each of `search_dirs` in order: a package
    directory (`a/__init__.py` or compiled `__init__`) or a module file (`a.py`, `a*.so`,
    `a*.pyd`, `a.pyc`) in a directory wins at once; plain directories collect as namespace
    portions. Each further component is looked up in its parent package's `__path__` only.

    `importlib.util.find_spec` is deliberately not used for dotted names: it imports the parent
    packages, i.e. runs their `__init__.py`. With `use_meta_path`, a top-level name not found
    in the directories is also asked of `sys.meta_path` (safe: finding a top-level module runs
    no module code), which covers editable installs served by custom finders.
    """
    parts = module.split(".")
    if not all(part.isidentifier() for part in parts):
        return ModuleSearch(module, None, missing=module, reason=f"'{module}' is not a module name")
    top = parts[0]
    location = _builtin_location(top)
    if location is None:
        location = _find_in(top, search_dirs)
    if location is None and use_meta_path:
        location = _meta_path_location(top)
    if location is None:
        return ModuleSearch(module, None, missing=top, searched=tuple(search_dirs))
    for index in range(1, len(parts)):
        parent = location
        name = ".".join(parts[: index + 1])
        child = _find_child(parent, name)
        if child is None:
            return _missing_child(module, parent, name)
        location = child
    return ModuleSearch(module, location)


def _missing_child(module: str, parent: ModuleLocation, name: str) -> ModuleSearch:
    reason = None
    if parent.kind is ModuleKind.MODULE:
        reason = f"'{parent.name}' is a module ({parent.path}), not a package"
    return ModuleSearch(
        module, None, missing=name, parent=parent, searched=parent.search_path, reason=reason
    )


def _find_child(parent: ModuleLocation, name: str) -> ModuleLocation | None:
    if parent.kind in (ModuleKind.EXTENSION, ModuleKind.BUILTIN, ModuleKind.OPAQUE):
        # Only the parent's own import can tell (e.g. `os.path`): assume it exists.
        return ModuleLocation(name, ModuleKind.OPAQUE)
    if parent.kind is ModuleKind.MODULE:
        return None
    return _find_in(name, parent.search_path)


def _builtin_location(name: str) -> ModuleLocation | None:
    if name in sys.builtin_module_names:
        return ModuleLocation(name, ModuleKind.BUILTIN)
    # FrozenImporter only consults the interpreter's table of frozen modules; it runs nothing.
    if importlib.machinery.FrozenImporter.find_spec(name) is not None:
        return ModuleLocation(name, ModuleKind.BUILTIN)
    return None


def _find_in(name: str, directories: Iterable[Path]) -> ModuleLocation | None:
    """Find the last component of dotted `name` in `directories` (a `sys.path` or `__path__`)."""
    tail = name.rpartition(".")[2]
    portions: list[Path] = []
    for directory in directories:
        entries = _entries(directory)
        if tail in entries and (directory / tail).is_dir():
            package = _package_init(directory / tail)
            if package is not None:
                return ModuleLocation(name, ModuleKind.PACKAGE, package, (directory / tail,))
        module_file = _module_file(directory, tail, entries)
        if module_file is not None:
            return _module_file_location(name, module_file)
        if tail in entries and (directory / tail).is_dir():
            portions.append(directory / tail)
    if portions:
        return ModuleLocation(name, ModuleKind.NAMESPACE, portions[0], tuple(portions))
    return None


def _module_file_location(name: str, path: Path) -> ModuleLocation:
    """The location of module `name` stored in the single file `path`."""
    kind = ModuleKind.MODULE if path.suffix == ".py" else ModuleKind.EXTENSION
    return ModuleLocation(name, kind, path)


def _entries(directory: Path) -> frozenset[str]:
    # Exact names from a listing, as FileFinder does, so `Graders.py` does not satisfy `graders`
    # on case-insensitive file systems.
    try:
        return frozenset(os.listdir(directory))
    except OSError:
        return frozenset()


def _package_init(directory: Path) -> Path | None:
    """The `__init__` file that makes `directory` a regular package, if any."""
    return _module_file(directory, "__init__", _entries(directory))


def _module_file(directory: Path, stem: str, entries: frozenset[str]) -> Path | None:
    """The file implementing module `stem` in `directory`, in the import system's order of
    preference: extension modules, then source, then sourceless bytecode."""
    candidates = [
        entry for entry in entries if (m := _EXTENSION_FILE.match(entry)) and m["stem"] == stem
    ]
    candidates += [
        stem + suffix for suffix in (".py", _SOURCELESS_SUFFIX) if stem + suffix in entries
    ]
    for candidate in candidates:
        if (directory / candidate).is_file():
            return directory / candidate
    return None


def _meta_path_location(name: str) -> ModuleLocation | None:
    """Ask `sys.meta_path` for a top-level module (no code runs for a top-level lookup)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    origin = Path(spec.origin) if spec.origin and spec.has_location else None
    if spec.submodule_search_locations is not None:
        paths = tuple(Path(p) for p in spec.submodule_search_locations)
        if origin is None:
            return ModuleLocation(name, ModuleKind.NAMESPACE, paths[0] if paths else None, paths)
        return ModuleLocation(name, ModuleKind.PACKAGE, origin, paths)
    if origin is not None:
        return _module_file_location(name, origin)
    return ModuleLocation(name, ModuleKind.BUILTIN)


def list_modules(directory: Path) -> list[str]:
    """Names importable from `directory` as top-level modules or packages (for suggestions)."""
    names = {_module_stem(directory, entry) for entry in _entries(directory)}
    return sorted(name for name in names if name is not None and name != "__init__")


def _module_stem(directory: Path, entry: str) -> str | None:
    extension = _EXTENSION_FILE.match(entry)
    if extension:
        stem = extension["stem"]
    elif entry.endswith((".py", _SOURCELESS_SUFFIX)):
        stem = entry.rpartition(".")[0]
    elif (directory / entry).is_dir():
        stem = entry
    else:
        return None
    return stem if stem.isidentifier() else None
