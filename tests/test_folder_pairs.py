"""No two folders of holodeck_lsp import each other, at any depth: of two sibling folders (two
top-level rooms such as `runner/` and `engine/`, or two folders inside the same parent such as
`runner/backends/` and `runner/execution/`), at most one imports the other. Imports are read as
tests/test_import_cycles.py reads them — module level, `if TYPE_CHECKING:` and function bodies
alike. A pair importing each other is one room split in two: neither can be read, moved or
reused without the other; move what both need down into one of them or into a leaf module
(docs/architecture.md, "The rooms")."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from test_import_cycles import PACKAGE, ROOT, import_graph

#: (parent package, folder, sibling folder) -> the (importer, imported) modules behind the arrow.
FolderArrows = dict[tuple[str, str, str], set[tuple[str, str]]]


def _is_folder(parts: list[str]) -> bool:
    """Whether the dotted `parts` (starting with the package) name a folder, packages and
    namespace folders (`config/` has no `__init__.py`) alike."""
    return ROOT.joinpath(*parts[1:]).is_dir()


def folder_arrows(
    graph: dict[str, set[str]], is_folder: Callable[[list[str]], bool] = _is_folder
) -> FolderArrows:
    """Every arrow between sibling folders: an import from a module inside folder A (at any
    depth, its `__init__` included) of a module inside a sibling folder B of the same parent."""
    arrows: FolderArrows = defaultdict(set)
    for importer, targets in graph.items():
        source = importer.split(".")
        for imported in targets:
            target = imported.split(".")
            depth = 0
            while depth < min(len(source), len(target)) and source[depth] == target[depth]:
                depth += 1
            if depth >= len(source) or depth >= len(target):
                continue  # one contains the other: a folder importing its own modules
            if is_folder(source[: depth + 1]) and is_folder(target[: depth + 1]):
                parent = ".".join(source[:depth])
                arrows[(parent, source[depth], target[depth])].add((importer, imported))
    return arrows


def mutual_pairs(arrows: FolderArrows) -> list[str]:
    """Each pair of sibling folders importing each other, with the modules responsible."""
    found: list[str] = []
    for (parent, first, second), there in sorted(arrows.items()):
        back = arrows.get((parent, second, first))
        if first < second and back:
            lines = [f"{parent}: {first}/ <-> {second}/"]
            lines += [f"    {a} -> {b}" for a, b in sorted(there)]
            lines += [f"    {a} -> {b}" for a, b in sorted(back)]
            found.append("\n".join(lines))
    return found


def test_a_pair_importing_each_other_is_found_with_its_modules() -> None:
    folders = {("p", "a"), ("p", "b"), ("p", "a", "x"), ("p", "a", "y")}
    graph = {
        "p.a.m": {"p.b.n"},  # a -> b
        "p.b.n": {"p.a.x.k"},  # b -> a (from deep inside a)
        "p.a.x.k": {"p.a.y.j"},  # x -> y only: one way
        "p.a.y.j": set(),
        "p.a": {"p.a.m"},  # a folder's __init__ importing its own module: no pair
    }
    arrows = folder_arrows(graph, lambda parts: tuple(parts) in folders)
    assert mutual_pairs(arrows) == ["p: a/ <-> b/\n    p.a.m -> p.b.n\n    p.b.n -> p.a.x.k"]


def test_modules_beside_folders_are_not_folders() -> None:
    # runner/run_session.py imports runner/execution/ and is no folder: not a pair candidate.
    arrows = folder_arrows(
        {"p.mod": {"p.a.m"}, "p.a.m": {"p.mod"}}, lambda parts: parts == ["p", "a"]
    )
    assert mutual_pairs(arrows) == []


def test_the_real_graph_has_folder_arrows_at_several_depths() -> None:
    """The check reads the package, not an empty graph: top-level rooms and folders inside
    runner/ and server/ all show up."""
    arrows = folder_arrows(import_graph())
    assert (PACKAGE, "runner", "engine") in arrows
    assert (f"{PACKAGE}.runner", "execution", "backends") in arrows
    assert (f"{PACKAGE}.server", "features", "documents") in arrows


def test_no_two_sibling_folders_import_each_other() -> None:
    pairs = mutual_pairs(folder_arrows(import_graph()))
    assert not pairs, "sibling folders importing each other:\n" + "\n".join(pairs)
