"""The names a module's top level binds, with whether each looks callable: what a `grader:`
reference or a completion list is checked against, without importing the module."""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from types import MappingProxyType

from holodeck_lsp.checker.python_source.binding_scan import BindingScanner
from holodeck_lsp.checker.python_source.bindings import MODULE_DUNDERS, Callability, NameBinding
from holodeck_lsp.checker.python_source.parsing import file_key, parse_file


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

    def lookup(self, name: str) -> NameBinding | None:
        """The binding of `name`, an UNKNOWN binding when it may exist at runtime, or None when
        the module certainly lacks it (which needs a readable file and no open-ended
        namespace)."""
        if name in self.bindings:
            return self.bindings[name]
        if name in MODULE_DUNDERS:
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
    key = file_key(path)
    if isinstance(key, str):
        return ModuleNames(path, error=key)
    return _names_cached(*key)


@lru_cache(maxsize=128)
def _names_cached(path: Path, mtime_ns: int, size: int) -> ModuleNames:
    parsed = parse_file(path, mtime_ns, size)
    if parsed.tree is None:
        return ModuleNames(path, error=parsed.error)
    scanner = BindingScanner(parsed.source.splitlines())
    env = scanner.run(parsed.tree.body, {})
    reasons = scanner.open_reasons + _dynamic_namespace_reasons(parsed.tree)
    return ModuleNames(
        path,
        MappingProxyType(env),
        open_ended_reason=reasons[0] if reasons else None,
        maybe_bound=_global_declarations(parsed.tree),
    )


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
