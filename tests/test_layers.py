"""The arrows of docs/architecture.md, read from the source (with `ast`, nothing imported):
each layer imports only the layers below it — at module level, inside functions and under
`TYPE_CHECKING` alike — and nothing imports `server`, `commands` or `cli`. The shared leaf
modules (`terminal`: colour; `exit_codes`; `argument_types`: numbers on the command line) may
be imported by any layer and import nothing of ours."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "holodeck_lsp"

#: layer -> the layers of ours it may import (itself always).
ALLOWED: dict[str, frozenset[str]] = {
    "schema": frozenset(),
    "checker": frozenset({"schema"}),
    # holodeck-lsp.yaml: read with the checker's file reading and YAML.
    "settings": frozenset({"schema", "checker"}),
    "engine": frozenset({"schema"}),
    # Every rendered output: check's diagnostics and a run's results, graded by the engine.
    "reports": frozenset({"schema", "checker", "engine"}),
    "runner": frozenset({"schema", "checker", "settings", "engine", "reports"}),
    # A benchmark's files in, a suite's files out: above the model, beside the run core.
    "importers": frozenset({"schema", "checker", "engine"}),
    "server": frozenset({"schema", "checker", "settings", "engine", "reports", "runner"}),
    "commands": frozenset(
        {"schema", "checker", "settings", "engine", "reports", "runner", "server", "importers"}
    ),
}

#: Top-level modules every layer may use; they import nothing of ours.
LEAVES = frozenset({"terminal", "exit_codes", "argument_types"})


def _ours(tree: ast.AST) -> list[tuple[int, str]]:
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append((node.lineno, node.module))
    return [(line, name) for line, name in found if name.split(".")[0] == "holodeck_lsp"]


def _layer_of(module: str) -> str | None:
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else None


@pytest.mark.parametrize("layer", sorted(ALLOWED))
def test_each_layer_imports_only_the_layers_below_it(layer: str) -> None:
    wrong: list[str] = []
    for path in sorted((PACKAGE / layer).rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        for line, module in _ours(tree):
            target = _layer_of(module)
            if target in (None, layer) or target == "__version__" or target in LEAVES:
                continue
            if target not in ALLOWED[layer]:
                wrong.append(f"{path.relative_to(PACKAGE.parent)}:{line} imports {module}")
    assert not wrong, "\n".join(wrong)


def test_leaf_modules_import_nothing_of_ours() -> None:
    for leaf in sorted(LEAVES):
        path = PACKAGE / f"{leaf}.py"
        assert _ours(ast.parse(path.read_text(encoding="utf-8"))) == [], path


def test_nothing_below_the_entry_points_imports_commands() -> None:
    importers = [
        str(path.relative_to(PACKAGE.parent))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "cli.py"
        and "commands" not in path.relative_to(PACKAGE).parts[:1]
        and any(
            module.startswith("holodeck_lsp.commands")
            for _, module in _ours(ast.parse(path.read_text(encoding="utf-8")))
        )
    ]
    assert importers == []


def test_the_layer_list_covers_every_package() -> None:
    packages = {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert packages == set(ALLOWED)


def test_nothing_but_the_entry_points_imports_the_cli() -> None:
    importers = [
        str(path.relative_to(PACKAGE.parent))
        for path in sorted(PACKAGE.rglob("*.py"))
        if path.name != "__main__.py"
        and any(
            module == "holodeck_lsp.cli"
            for _, module in _ours(ast.parse(path.read_text(encoding="utf-8")))
        )
    ]
    assert importers == []


def test_only_the_serve_command_imports_the_server() -> None:
    importers = [
        str(path.relative_to(PACKAGE.parent))
        for path in sorted(PACKAGE.rglob("*.py"))
        if "server" not in path.relative_to(PACKAGE).parts[:1]
        and any(
            module.startswith("holodeck_lsp.server")
            for _, module in _ours(ast.parse(path.read_text(encoding="utf-8")))
        )
    ]
    assert importers == ["holodeck_lsp/commands/serve.py"]


def _front_end_uses(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a module parses a command line or prints: `import argparse`, `print(…)`, and
    writes to sys.stdout / sys.stderr."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import | ast.ImportFrom):
            names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module]
            found += [(node.lineno, "imports argparse") for n in names if n == "argparse"]
        elif isinstance(node, ast.Call):
            func = node.func
            if isinstance(func, ast.Name) and func.id == "print":
                found.append((node.lineno, "print()"))
            elif (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Attribute)
                and isinstance(func.value.value, ast.Name)
                and func.value.value.id == "sys"
                and func.value.attr in ("stdout", "stderr")
            ):
                found.append((node.lineno, f"sys.{func.value.attr}.{func.attr}()"))
    return found


@pytest.mark.parametrize("layer", ["runner", "importers"])
def test_the_run_core_neither_parses_flags_nor_prints(layer: str) -> None:
    """runner/ is what the CLI and the editor share: it returns and raises; commands/ (the
    terminal) and server/ (the client) decide what to show. importers/ likewise: the
    `import` command prints, the converters return texts and raise."""
    wrong = [
        f"{path.relative_to(PACKAGE.parent)}:{line} {what}"
        for path in sorted((PACKAGE / layer).rglob("*.py"))
        if "suite_files" not in path.parts  # files written into suites, run from there
        for line, what in _front_end_uses(ast.parse(path.read_text(encoding="utf-8")))
    ]
    assert wrong == []


def test_the_front_end_finder_sees_print_argparse_and_stream_writes() -> None:
    source = "import argparse\nimport sys\nprint('x')\nsys.stderr.write('y')\n"
    assert [what for _, what in _front_end_uses(ast.parse(source))] == [
        "imports argparse",
        "print()",
        "sys.stderr.write()",
    ]
