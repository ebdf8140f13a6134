"""Modules stay small enough to read in one sitting, functions short enough to read at once:
no module of holodeck_lsp over 400 lines, no function over 80 lines (from its `def` to its last
line, nested functions included) — the rules of the house in DEVELOPERS.md. A module that grows
past the limit is split by job into well-named modules; a long function into named steps.

A function that only declares command-line options (an `argparse` parser and its
`add_argument` calls, nothing else) is exempt: it is a table written as calls, and splitting it
would only scatter the table. The other exemptions are named below, each with its reason."""

from __future__ import annotations

import ast
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "holodeck_lsp"
MAX_MODULE_LINES = 400
MAX_FUNCTION_LINES = 80

#: Vendored whole with their licence and notice (importers/bfcl/suite_files/bfcl_classes/
#: LICENSE, NOTICE): BFCL's own classes, copied beside an imported suite, never edited here.
VENDORED = (
    "importers/bfcl/suite_files/bfcl_classes/",
    # τ²-bench's code, MIT (importers/tau2/suite_files/tau2_bench/LICENSE, NOTICE).
    "importers/tau2/suite_files/tau2_bench/",
)

#: Calls that declare a parser or its options.
_DECLARING = frozenset(
    {
        "ArgumentParser",
        "add_argument",
        "add_argument_group",
        "add_mutually_exclusive_group",
        "add_parser",
        "add_subparsers",
        "set_defaults",
    }
)


def _called_name(node: ast.expr) -> str | None:
    if not isinstance(node, ast.Call):
        return None
    if isinstance(node.func, ast.Attribute):
        return node.func.attr
    return node.func.id if isinstance(node.func, ast.Name) else None


def _declares_options(statement: ast.stmt) -> bool:
    """Whether `statement` only declares command-line options: a parser or an option made,
    a helper named `add_…` called, a loop of those, the parser returned, a docstring."""
    if isinstance(statement, ast.Return):
        return statement.value is None or isinstance(statement.value, ast.Name)
    if isinstance(statement, ast.Expr) and isinstance(statement.value, ast.Constant):
        return isinstance(statement.value.value, str)
    if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.Expr)) and statement.value:
        name = _called_name(statement.value)
        return name is not None and (name in _DECLARING or name.startswith("add_"))
    if isinstance(statement, ast.For):
        return not statement.orelse and all(_declares_options(s) for s in statement.body)
    return False


def is_argparse_declaration(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any(
        _called_name(s.value) in _DECLARING
        for s in function.body
        if isinstance(s, (ast.Assign, ast.Expr))
    ) and all(_declares_options(s) for s in function.body)


def long_functions(source: str, limit: int = MAX_FUNCTION_LINES) -> dict[str, int]:
    """Every function (methods and nested ones too) of `source` longer than `limit` lines,
    argparse declarations aside: its dotted name in the module -> its length."""
    found: dict[str, int] = {}

    def visit(node: ast.AST, prefix: str) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{prefix}{child.name}"
                if not isinstance(child, ast.ClassDef):
                    length = (child.end_lineno or child.lineno) - child.lineno + 1
                    if length > limit and not is_argparse_declaration(child):
                        found[name] = length
                visit(child, f"{name}.")
            else:
                visit(child, prefix)

    visit(ast.parse(source), "")
    return found


def _modules() -> dict[str, str]:
    """Every module of the package outside the vendored files: its path under holodeck_lsp/
    (with "/") -> its text."""
    found: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE).as_posix()
        if not relative.startswith(VENDORED):
            found[relative] = path.read_text(encoding="utf-8")
    return found


def _long_modules() -> dict[str, int]:
    return {
        name: len(text.splitlines())
        for name, text in _modules().items()
        if len(text.splitlines()) > MAX_MODULE_LINES
    }


def _long_functions() -> dict[str, int]:
    return {
        f"{name}:{function}": length
        for name, text in _modules().items()
        for function, length in long_functions(text).items()
    }


def _function(lines: int, body: str = "    x = 1\n") -> str:
    return "def f():\n" + body * (lines - 1)


def test_a_long_function_is_found_by_its_dotted_name() -> None:
    assert long_functions(_function(81)) == {"f": 81}
    assert long_functions(_function(80)) == {}
    method = "class C:\n    def m(self):\n" + "        x = 1\n" * 81
    assert long_functions(method) == {"C.m": 82}
    nested = "def outer():\n    def inner():\n" + "        x = 1\n" * 81
    assert long_functions(nested) == {"outer": 83, "outer.inner": 82}


def test_only_a_function_that_only_declares_options_is_exempt() -> None:
    declared = "    parser.add_argument('--x', help='x')\n"
    parser = "def p():\n    parser = argparse.ArgumentParser()\n" + declared * 90
    assert long_functions(parser + "    add_more_flags(parser)\n    return parser\n") == {}
    looped = parser + "    for flag in FLAGS:\n        parser.add_argument(flag)\n"
    assert long_functions(looped) == {}
    doing_more = parser + "    if parser.prog:\n        print(parser.prog)\n"
    assert long_functions(doing_more) == {"p": 94}
    not_a_parser = "def q():\n" + "    add_row(table)\n" * 90
    assert long_functions(not_a_parser) == {"q": 91}


def test_the_real_package_is_read() -> None:
    modules = _modules()
    assert "server/features/diagnostics/engine.py" in modules
    assert not any(name.startswith(VENDORED) for name in modules)
    run_parser = long_functions(modules["commands/run/options.py"], limit=20)
    assert "run_parser" not in run_parser  # an argparse declaration, long as it is


def test_no_module_over_400_lines() -> None:
    over = _long_modules()
    assert not over, f"modules over {MAX_MODULE_LINES} lines (split them by job): {over}"


def test_no_function_over_80_lines() -> None:
    over = _long_functions()
    assert not over, f"functions over {MAX_FUNCTION_LINES} lines (split into steps): {over}"
