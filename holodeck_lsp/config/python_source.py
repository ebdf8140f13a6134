"""Static facts about Python source files: where a module lives, which names it defines, what a
function's signature is. Nothing here imports or runs the code it looks at.

The editor opens untrusted repositories, so the grader and function-tool checks must not execute
user code just because a file was opened. Everything below is therefore done with directory
listings and `ast`: we mirror what Python's import system would find, and read top-level
definitions the way a reader would, accepting that dynamic tricks can only be recognised as
"anything may exist here" rather than verified.

Columns are 0-based Unicode code points (as the LSP `Position` expects), lines are 0-based.
"""

from __future__ import annotations

import ast
import builtins
import importlib.machinery
import importlib.util
import io
import os
import re
import sys
import tokenize
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

# --------------------------------------------------------------------------------------------
# Locating modules
# --------------------------------------------------------------------------------------------


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

    @property
    def inspectable(self) -> bool:
        """Whether the module's attributes can be read statically (namespace packages have
        none besides submodules, so they count as inspectable)."""
        return self.source_path is not None or self.kind is ModuleKind.NAMESPACE


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

    @property
    def found(self) -> bool:
        return self.location is not None


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


def find_module_file(
    module: str, search_dirs: Sequence[Path], *, use_meta_path: bool = False
) -> ModuleLocation | None:
    """Locate a dotted module as Python's path-based import would, without importing anything.

    See `search_module` for the details; this returns just the location (None when missing).
    """
    return search_module(module, search_dirs, use_meta_path=use_meta_path).location


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
            return module_file_location(name, module_file)
        if tail in entries and (directory / tail).is_dir():
            portions.append(directory / tail)
    if portions:
        return ModuleLocation(name, ModuleKind.NAMESPACE, portions[0], tuple(portions))
    return None


def module_file_location(name: str, path: Path) -> ModuleLocation:
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
        return module_file_location(name, origin)
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


# --------------------------------------------------------------------------------------------
# Parsing, cached by file identity
# --------------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _Parsed:
    source: str
    tree: ast.Module | None
    error: str | None


_FileKey = tuple[Path, int, int]


def _file_key(path: Path) -> _FileKey | str:
    """(path, mtime_ns, size): the cache key that changes whenever the file is rewritten; or
    why the file cannot be read."""
    try:
        stat = path.stat()
    except OSError as exc:
        return f"cannot read {path}: {exc.strerror or exc}"
    return (path, stat.st_mtime_ns, stat.st_size)


def _parse(path: Path) -> _Parsed:
    """Parse `path`, reusing the previous result while its mtime and size are unchanged."""
    key = _file_key(path)
    if isinstance(key, str):
        return _Parsed("", None, key)
    return _parse_cached(*key)


@lru_cache(maxsize=128)
def _parse_cached(path: Path, mtime_ns: int, size: int) -> _Parsed:
    del mtime_ns, size  # part of the cache key only
    try:
        data = path.read_bytes()
    except OSError as exc:
        return _Parsed("", None, f"cannot read {path}: {exc.strerror or exc}")
    try:
        # Honour a PEP 263 coding cookie, as the interpreter would.
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
        source = data.decode(encoding)
    except (SyntaxError, UnicodeDecodeError, LookupError) as exc:
        return _Parsed("", None, f"cannot decode {path}: {exc}")
    try:
        return _Parsed(source, ast.parse(source, filename=str(path)), None)
    except SyntaxError as exc:
        return _Parsed(source, None, f"syntax error at line {exc.lineno}: {exc.msg}")
    except (ValueError, RecursionError, MemoryError) as exc:
        return _Parsed(source, None, f"cannot parse {path}: {type(exc).__name__}: {exc}")


def _char_col(source_lines: Sequence[str], lineno: int, byte_col: int) -> int:
    """Convert ast's UTF-8 byte column on 1-based `lineno` to a code-point column."""
    if not 0 < lineno <= len(source_lines):
        return byte_col
    line = source_lines[lineno - 1]
    return len(line.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))


# --------------------------------------------------------------------------------------------
# Top-level names
# --------------------------------------------------------------------------------------------


class Callability(StrEnum):
    CALLABLE = "callable"
    NOT_CALLABLE = "not_callable"
    UNKNOWN = "unknown"  # cannot tell statically: treat as fine


@dataclass(frozen=True, slots=True)
class NameBinding:
    """What a top-level name is bound to. `description` is a short noun phrase for messages
    ("function", "class", "int literal", "import of 'x'"); `line`/`col` are 0-based and point at
    the `def`/`class` keyword or the assigned name."""

    name: str
    callability: Callability
    description: str
    line: int
    col: int


_MODULE_DUNDERS = frozenset(
    {"__name__", "__file__", "__doc__", "__package__", "__spec__", "__loader__", "__path__"}
)


@dataclass(frozen=True, slots=True)
class ModuleNames:
    """The names a module's top level binds, as far as can be read without running it.

    `open_ended_reason` is set when any name may exist (a module-level `__getattr__`, a star
    import, writes through `globals()`); `maybe_bound` are names declared `global` inside
    functions, which may be bound when those run; `error` is set when the file could not be
    read or parsed, in which case nothing can be said about its names.
    """

    path: Path
    bindings: Mapping[str, NameBinding] = field(
        default_factory=lambda: MappingProxyType({}), hash=False
    )
    open_ended_reason: str | None = None
    maybe_bound: frozenset[str] = frozenset()
    error: str | None = None

    @property
    def open_ended(self) -> bool:
        return self.open_ended_reason is not None

    @property
    def verifiable(self) -> bool:
        """Whether a missing name really is missing."""
        return self.error is None and self.open_ended_reason is None

    def lookup(self, name: str) -> NameBinding | None:
        """The binding of `name`, an UNKNOWN binding when it may exist at runtime, or None when
        the module certainly lacks it (only when `verifiable`)."""
        if name in self.bindings:
            return self.bindings[name]
        if name in _MODULE_DUNDERS:
            return NameBinding(name, Callability.NOT_CALLABLE, "module attribute", 0, 0)
        reason = self._maybe_reason(name)
        if reason is None:
            return None
        return NameBinding(name, Callability.UNKNOWN, reason, 0, 0)

    def _maybe_reason(self, name: str) -> str | None:
        if self.error is not None:
            return f"unverifiable ({self.error})"
        if self.open_ended_reason is not None:
            return f"may exist: {self.open_ended_reason}"
        if name in self.maybe_bound:
            return "declared global in a function"
        if name.startswith("__") and name.endswith("__"):
            return "module object attribute"  # e.g. `__dict__`, `__class__`
        return None


def top_level_names(path: Path) -> ModuleNames:
    """The names `path` binds at module level, with whether each looks callable.

    Cached by (path, mtime_ns, size). A syntax error is reported in `error`, never raised.
    """
    key = _file_key(path)
    if isinstance(key, str):
        return ModuleNames(path, error=key)
    return _names_cached(*key)


@lru_cache(maxsize=128)
def _names_cached(path: Path, mtime_ns: int, size: int) -> ModuleNames:
    parsed = _parse_cached(path, mtime_ns, size)
    if parsed.tree is None:
        return ModuleNames(path, error=parsed.error)
    scanner = _BindingScanner(parsed.source.splitlines())
    env = scanner.run(parsed.tree.body, {})
    reasons = scanner.open_reasons + _dynamic_namespace_reasons(parsed.tree)
    return ModuleNames(
        path,
        MappingProxyType(env),
        open_ended_reason=reasons[0] if reasons else None,
        maybe_bound=_global_declarations(parsed.tree),
    )


_Env = dict[str, NameBinding]


class _BindingScanner:
    """Walks module-level statements in order, tracking what each name is bound to.

    Straight-line code overrides earlier bindings; alternatives (`if`/`else`, `try`/`except`,
    loops that may not run) are merged, and a name bound on only one branch still counts.
    """

    def __init__(self, source_lines: list[str]) -> None:
        self.lines = source_lines
        self.open_reasons: list[str] = []

    def run(self, statements: Iterable[ast.stmt], env: _Env) -> _Env:
        for statement in statements:
            env = self.statement(statement, env)
        return env

    def statement(self, node: ast.stmt, env: _Env) -> _Env:
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
            kind = "async function" if isinstance(node, ast.AsyncFunctionDef) else "function"
            self.bind_definition(node, kind, env)
        elif isinstance(node, ast.ClassDef):
            self.bind_definition(node, "class", env)
        elif isinstance(node, ast.Assign):
            for target in node.targets:
                self.assign(target, node.value, env)
        elif isinstance(node, ast.AnnAssign):
            # `x: int` without a value binds nothing at runtime.
            if node.value is not None:
                self.assign(node.target, node.value, env)
        elif isinstance(node, ast.AugAssign):
            self.augmented(node, env)
        elif isinstance(node, ast.Import | ast.ImportFrom):
            self.imports(node, env)
        elif isinstance(node, ast.Delete):
            for target in node.targets:
                for name in _target_names(target):
                    env.pop(name.id, None)
        else:
            return self.compound(node, env)
        return env

    def compound(self, node: ast.stmt, env: _Env) -> _Env:
        if isinstance(node, ast.If):
            return _merge([self.run(node.body, dict(env)), self.run(node.orelse, dict(env))])
        if isinstance(node, ast.Try | ast.TryStar):
            return self.try_block(node, env)
        if isinstance(node, ast.With | ast.AsyncWith):
            for item in node.items:
                if item.optional_vars is not None:
                    self.bind_unknown(item.optional_vars, "with target", env)
            return self.run(node.body, env)
        if isinstance(node, ast.For | ast.AsyncFor | ast.While):
            return self.loop(node, env)
        if isinstance(node, ast.Match):
            return self.match(node, env)
        return env

    def try_block(self, node: ast.Try | ast.TryStar, env: _Env) -> _Env:
        after_body = self.run(node.orelse, self.run(node.body, dict(env)))
        # A handler may run after any part of the body, so it starts from either state.
        handler_start = _merge([env, after_body])
        branches = [after_body]
        for handler in node.handlers:
            branch = self.run(handler.body, dict(handler_start))
            if handler.name:
                branch.pop(handler.name, None)  # `except E as e` unbinds `e` afterwards
            branches.append(branch)
        return self.run(node.finalbody, _merge(branches))

    def loop(self, node: ast.For | ast.AsyncFor | ast.While, env: _Env) -> _Env:
        body_env = dict(env)
        if isinstance(node, ast.For | ast.AsyncFor):
            self.bind_unknown(node.target, "loop variable", body_env)
        # The body may run zero times.
        after = _merge([env, self.run(node.body, body_env)])
        return self.run(node.orelse, after)

    def match(self, node: ast.Match, env: _Env) -> _Env:
        branches = [dict(env)]  # no case matched
        for case in node.cases:
            case_env = dict(env)
            for sub in ast.walk(case.pattern):
                name = sub.rest if isinstance(sub, ast.MatchMapping) else None
                if isinstance(sub, ast.MatchAs | ast.MatchStar):
                    name = sub.name
                if name is not None:
                    case_env[name] = self.binding(name, sub, Callability.UNKNOWN, "match capture")
            branches.append(self.run(case.body, case_env))
        return _merge(branches)

    def bind_definition(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef, kind: str, env: _Env
    ) -> None:
        env[node.name] = self.binding(node.name, node, Callability.CALLABLE, kind)
        if node.name == "__getattr__" and kind != "class":
            self.open_reasons.append("the module defines __getattr__")

    def assign(self, target: ast.expr, value: ast.expr, env: _Env) -> None:
        if isinstance(target, ast.Name):
            callability, description = _classify(value, env)
            env[target.id] = self.binding(target.id, target, callability, description)
            if target.id == "__getattr__":
                self.open_reasons.append("the module assigns __getattr__")
        elif isinstance(target, ast.Tuple | ast.List):
            self.unpack(target, value, env)
        elif isinstance(target, ast.Starred):
            self.bind_unknown(target.value, "unpacked value", env)

    def unpack(self, target: ast.Tuple | ast.List, value: ast.expr, env: _Env) -> None:
        has_star = any(isinstance(e, ast.Starred) for e in target.elts)
        if (
            isinstance(value, ast.Tuple | ast.List)
            and not has_star
            and not any(isinstance(e, ast.Starred) for e in value.elts)
            and len(value.elts) == len(target.elts)
        ):
            for sub_target, sub_value in zip(target.elts, value.elts, strict=True):
                self.assign(sub_target, sub_value, env)
            return
        for element in target.elts:
            if isinstance(element, ast.Starred) and isinstance(element.value, ast.Name):
                name = element.value.id
                env[name] = self.binding(name, element.value, Callability.NOT_CALLABLE, "list")
            else:
                self.bind_unknown(element, "unpacked value", env)

    def augmented(self, node: ast.AugAssign, env: _Env) -> None:
        if not isinstance(node.target, ast.Name):
            return
        previous = env.get(node.target.id)
        callability: Callability
        # `x += ...` keeps a number, string or list what it was; anything else we cannot tell.
        if previous is not None and previous.callability is Callability.NOT_CALLABLE:
            callability, description = previous.callability, previous.description
        else:
            callability, description = Callability.UNKNOWN, "augmented assignment"
        env[node.target.id] = self.binding(node.target.id, node.target, callability, description)

    def imports(self, node: ast.Import | ast.ImportFrom, env: _Env) -> None:
        for alias in node.names:
            if isinstance(node, ast.ImportFrom) and alias.name == "*":
                source = "." * node.level + (node.module or "")
                self.open_reasons.append(f"'from {source} import *'")
                continue
            if isinstance(node, ast.Import):
                bound = alias.asname or alias.name.partition(".")[0]
                description = f"import of '{alias.name}'"
            else:
                bound = alias.asname or alias.name
                source = "." * node.level + (node.module or "")
                description = f"'{alias.name}' imported from '{source}'"
            env[bound] = self.binding(bound, alias, Callability.UNKNOWN, description)

    def bind_unknown(self, target: ast.expr, description: str, env: _Env) -> None:
        for name in _target_names(target):
            env[name.id] = self.binding(name.id, name, Callability.UNKNOWN, description)

    def binding(
        self, name: str, node: ast.AST, callability: Callability, description: str
    ) -> NameBinding:
        lineno: int = getattr(node, "lineno", 1)
        col = _char_col(self.lines, lineno, getattr(node, "col_offset", 0))
        return NameBinding(name, callability, description, lineno - 1, col)


def _target_names(target: ast.expr) -> list[ast.Name]:
    """The plain names an assignment target binds (attributes and subscripts bind none)."""
    if isinstance(target, ast.Name):
        return [target]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, ast.Tuple | ast.List):
        return [name for element in target.elts for name in _target_names(element)]
    return []


def _merge(envs: Sequence[_Env]) -> _Env:
    """Join alternative states: a name present on any branch exists; if branches disagree about
    whether it is callable, it is UNKNOWN."""
    merged: _Env = {}
    for env in envs:
        for name, binding in env.items():
            earlier = merged.get(name)
            if earlier is None or earlier == binding:
                merged[name] = binding
            elif earlier.callability is not binding.callability:
                merged[name] = NameBinding(
                    name,
                    Callability.UNKNOWN,
                    f"{earlier.description} or {binding.description}",
                    max(earlier.line, binding.line),
                    binding.col if binding.line >= earlier.line else earlier.col,
                )
            elif binding.line >= earlier.line:
                merged[name] = binding
    return merged


_LITERAL_DISPLAYS: dict[type[ast.expr], str] = {
    ast.List: "list",
    ast.ListComp: "list",
    ast.Tuple: "tuple",
    ast.Dict: "dict",
    ast.DictComp: "dict",
    ast.Set: "set",
    ast.SetComp: "set",
    ast.GeneratorExp: "generator",
    ast.JoinedStr: "str (f-string)",
    ast.Compare: "comparison result (bool)",
}


def _classify(value: ast.expr, env: _Env) -> tuple[Callability, str]:
    """Whether the value of expression `value` looks callable, and a noun phrase for it."""
    if isinstance(value, ast.Lambda):
        return Callability.CALLABLE, "lambda"
    if isinstance(value, ast.Call):
        # `functools.partial(...)`, a class instantiation, a decorator factory: callables are
        # the common case, and we must not call a grader "not callable" on a guess.
        return Callability.CALLABLE, f"result of calling {_short_source(value.func)}"
    if isinstance(value, ast.Constant):
        return Callability.NOT_CALLABLE, _constant_description(value.value)
    if type(value) in _LITERAL_DISPLAYS:
        return Callability.NOT_CALLABLE, _LITERAL_DISPLAYS[type(value)]
    if isinstance(value, ast.Name):
        return _classify_name(value.id, env)
    if isinstance(value, ast.NamedExpr):
        return _classify(value.value, env)
    if isinstance(value, ast.UnaryOp):
        if isinstance(value.op, ast.Not):
            return Callability.NOT_CALLABLE, "bool"
        return _classify_literal_operands([value.operand], env)
    if isinstance(value, ast.BinOp):
        return _classify_literal_operands([value.left, value.right], env)
    if isinstance(value, ast.IfExp):
        return _combine([_classify(value.body, env), _classify(value.orelse, env)])
    if isinstance(value, ast.BoolOp):
        return _combine([_classify(operand, env) for operand in value.values])
    return Callability.UNKNOWN, f"value of {_short_source(value)}"


def _classify_name(name: str, env: _Env) -> tuple[Callability, str]:
    if name in env:
        bound = env[name]
        return bound.callability, f"alias of '{name}' ({bound.description})"
    if name in _MODULE_DUNDERS:
        return Callability.NOT_CALLABLE, f"alias of module attribute '{name}'"
    if hasattr(builtins, name):
        # Builtins are the interpreter's own objects, safe to look at.
        is_callable = callable(getattr(builtins, name))
        return (
            Callability.CALLABLE if is_callable else Callability.NOT_CALLABLE,
            f"builtin '{name}'",
        )
    return Callability.UNKNOWN, f"alias of '{name}'"


def _classify_literal_operands(operands: Sequence[ast.expr], env: _Env) -> tuple[Callability, str]:
    """Arithmetic on literals (`-1`, `"a" + "b"`, `[x] * 3`) gives a literal; else unknown."""
    kinds = [_classify(operand, env) for operand in operands]
    if all(callability is Callability.NOT_CALLABLE for callability, _ in kinds):
        return Callability.NOT_CALLABLE, kinds[0][1]
    return Callability.UNKNOWN, "expression"


def _combine(alternatives: Sequence[tuple[Callability, str]]) -> tuple[Callability, str]:
    callabilities = {callability for callability, _ in alternatives}
    description = " or ".join(dict.fromkeys(description for _, description in alternatives))
    if len(callabilities) == 1:
        return alternatives[0][0], description
    return Callability.UNKNOWN, description


def _constant_description(value: object) -> str:
    if value is None:
        return "None"
    if value is Ellipsis:
        return "Ellipsis"
    return f"{type(value).__name__} literal"


def _short_source(node: ast.AST, limit: int = 40) -> str:
    text = ast.unparse(node)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _global_declarations(tree: ast.Module) -> frozenset[str]:
    return frozenset(
        name for node in ast.walk(tree) if isinstance(node, ast.Global) for name in node.names
    )


def _dynamic_namespace_reasons(tree: ast.Module) -> list[str]:
    """Ways the module can create attributes that no statement names: writes through
    `globals()`/`vars()`, `setattr` on itself, or replacing itself in `sys.modules`."""
    reasons: list[str] = []
    for node in ast.walk(tree):
        if _is_namespace_call(node):
            reasons.append("the module writes to its namespace through globals()/vars()")
        elif (
            isinstance(node, ast.Subscript)
            and isinstance(node.ctx, ast.Store)
            and _is_sys_modules(node.value)
        ):
            reasons.append("the module replaces an entry of sys.modules")
        elif (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id == "setattr"
            and node.args
            and isinstance(node.args[0], ast.Subscript)
            and _is_sys_modules(node.args[0].value)
        ):
            reasons.append("the module sets attributes on itself through sys.modules")
    return reasons


def _is_namespace_call(node: ast.AST) -> bool:
    """`globals()[...] = ...`, `globals().update(...)`, `vars().setdefault(...)` and the like."""

    def is_globals(expr: ast.AST) -> bool:
        return (
            isinstance(expr, ast.Call)
            and isinstance(expr.func, ast.Name)
            and expr.func.id in ("globals", "vars")
            and not expr.args
        )

    if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Store):
        return is_globals(node.value)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute):
        writers = ("update", "setdefault", "__setitem__")
        return node.func.attr in writers and is_globals(node.func.value)
    return False


def _is_sys_modules(node: ast.AST) -> bool:
    return (
        isinstance(node, ast.Attribute)
        and node.attr == "modules"
        and isinstance(node.value, ast.Name)
        and node.value.id == "sys"
    )


# --------------------------------------------------------------------------------------------
# Function signatures
# --------------------------------------------------------------------------------------------


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
    decorators: tuple[str, ...] = ()

    @property
    def has_var_positional(self) -> bool:
        return any(p.kind is ParameterKind.VAR_POSITIONAL for p in self.parameters)

    @property
    def has_var_keyword(self) -> bool:
        return any(p.kind is ParameterKind.VAR_KEYWORD for p in self.parameters)

    @property
    def keyword_names(self) -> tuple[str, ...]:
        """The parameters that can be passed by keyword (as a tool call's arguments are)."""
        keywordable = (ParameterKind.POSITIONAL_OR_KEYWORD, ParameterKind.KEYWORD_ONLY)
        return tuple(p.name for p in self.parameters if p.kind in keywordable)

    def accepts_keyword(self, name: str) -> bool:
        return self.has_var_keyword or name in self.keyword_names


_FunctionNode = ast.FunctionDef | ast.AsyncFunctionDef
_SourceText = Callable[[ast.expr | None], str | None]
_MAX_ALIAS_DEPTH = 8


def function_signature(path: Path, name: str) -> FunctionSignature | None:
    """The signature of top-level function `name` in `path`, or None when there is no such
    function (or the file cannot be parsed). Definitions inside top-level `if`/`try` blocks
    count (the last one in the file wins); a plain alias `name = other_function` is followed.
    """
    key = _file_key(path)
    if isinstance(key, str):
        return None
    return _signature_cached(*key, name)


@lru_cache(maxsize=512)
def _signature_cached(path: Path, mtime_ns: int, size: int, name: str) -> FunctionSignature | None:
    # Keyed like _parse_cached: an edited tools.py is read again, an unchanged one never is.
    parsed = _parse_cached(path, mtime_ns, size)
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
    col = _char_col(lines, node.lineno, node.col_offset)
    line_text = lines[node.lineno - 1] if node.lineno <= len(lines) else ""
    match = re.compile(r"def\s+" + re.escape(node.name) + r"\b").search(line_text, col)
    name_col = match.end() - len(node.name) if match else col

    def text(expr: ast.expr | None) -> str | None:
        if expr is None:
            return None
        return ast.get_source_segment(source, expr) or ast.unparse(expr)

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
        decorators=tuple(text(d) or "" for d in node.decorator_list),
    )


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
