"""No import cycle anywhere in holodeck_lsp — counting every import: at module level, under
`if TYPE_CHECKING:` and inside functions. A cycle, even a type-only one or one kept alive by
a function-level import, means two modules cannot be read (or moved) one without the other.
Within the server the layering is core <- documents <- features and runs, with app.py on top
(see DEVELOPERS.md); between rooms, tests/test_layers.py."""

from __future__ import annotations

import ast
from pathlib import Path

import holodeck_lsp

ROOT = Path(holodeck_lsp.__file__).parent
PACKAGE = "holodeck_lsp"
SERVER = f"{PACKAGE}.server"


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join((PACKAGE, *parts))


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in sorted(ROOT.rglob("*.py"))}


def _imports(path: Path, known: set[str]) -> set[str]:
    """The package's modules `path` imports anywhere in its text (`from a import b` is module
    `a.b` when that is a module, else `a`)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [
                f"{node.module}.{alias.name}"
                if f"{node.module}.{alias.name}" in known
                else node.module
                for alias in node.names
            ]
        else:
            continue
        found.update(name for name in names if name in known)
    return found


def import_graph() -> dict[str, set[str]]:
    modules = _modules()
    known = set(modules)
    return {name: _imports(path, known) - {name} for name, path in modules.items()}


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of `graph` as a list of modules (first = last), or None."""
    done: set[str] = set()
    stack: list[str] = []
    on_stack: set[str] = set()

    def visit(name: str) -> list[str] | None:
        stack.append(name)
        on_stack.add(name)
        for target in sorted(graph[name]):
            if target in on_stack:
                return [*stack[stack.index(target) :], target]
            if target not in done:
                cycle = visit(target)
                if cycle is not None:
                    return cycle
        stack.pop()
        on_stack.discard(name)
        done.add(name)
        return None

    for name in sorted(graph):
        if name not in done:
            cycle = visit(name)
            if cycle is not None:
                return cycle
    return None


def test_the_cycle_finder_finds_a_type_only_cycle() -> None:
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set()}) is None


def test_imports_are_read_from_every_level() -> None:
    graph = import_graph()
    # Module level, a TYPE_CHECKING block and a function body, respectively.
    assert f"{SERVER}.core" in graph[f"{SERVER}.features.hover"]
    assert f"{SERVER}.documents.node_at" in graph[f"{SERVER}.features.hover"]
    assert f"{SERVER}.documents.references" in graph[f"{SERVER}.features.definition"]


def test_every_room_is_in_the_graph() -> None:
    rooms = {name.split(".")[1] for name in import_graph() if name.count(".") >= 1}
    assert {
        "schema",
        "checker",
        "settings",
        "engine",
        "reports",
        "runner",
        "commands",
        "server",
    } <= rooms


def test_no_import_cycle_in_the_package() -> None:
    assert find_cycle(import_graph()) is None


def test_core_imports_no_feature() -> None:
    imported = import_graph()[f"{SERVER}.core"]
    assert not {name for name in imported if ".features." in name or ".runs." in name}
