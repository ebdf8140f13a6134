"""No test module imports a heavy library at its top.

pytest imports every test module while collecting, and under `pytest -n 3` each xdist worker
collects the whole suite, all three at once: a module-level `import scipy` made every worker
load (and, on a fresh clone, compile from source at the same moment) scipy, statsmodels,
numpy and pandas — about 1,000 files, half of what collection read — though only the
statistics tests use them; the model SDKs the same for a few backend tests
(docs/benchmarks.md, "Cuts of the fourth session of 2026-12-06"). Such tests import the
library inside the test (the statistics ones also share one xdist group)."""

from __future__ import annotations

import ast
from pathlib import Path

#: Imported only inside the tests that use them: the reference statistics libraries, and the
#: model SDKs the product itself imports only when a run needs them.
HEAVY = frozenset(
    {"scipy", "statsmodels", "numpy", "pandas", "openai", "semantic_kernel", "claude_agent_sdk"}
)

TESTS = Path(__file__).resolve().parent


def top_level_imports(tree: ast.Module) -> list[tuple[int, str]]:
    """(line, module) of each import run when the module is imported: its body, and inside
    `if` / `try` / `with` at its top, but not inside a function or class."""
    found: list[tuple[int, str]] = []
    pending: list[ast.stmt] = list(tree.body)
    while pending:
        node = pending.pop()
        if isinstance(node, ast.Import):
            found += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
        elif isinstance(node, ast.If | ast.Try | ast.With):
            for field in ("body", "orelse", "finalbody", "handlers"):
                pending += getattr(node, field, [])
        elif isinstance(node, ast.ExceptHandler):
            pending += node.body
    return found


def test_no_test_module_imports_a_heavy_library_at_collection() -> None:
    offenders = [
        f"{path.relative_to(TESTS.parent)}:{line}: {module}"
        for path in sorted(TESTS.rglob("*.py"))
        for line, module in top_level_imports(ast.parse(path.read_text(encoding="utf-8")))
        if module.split(".")[0] in HEAVY
    ]
    assert offenders == [], "import these inside the tests that use them:\n" + "\n".join(offenders)


def test_the_finder_sees_imports_under_if_and_try_but_not_in_functions() -> None:
    source = (
        "import numpy\n"
        "if True:\n    from scipy import stats\n"
        "try:\n    import pandas\nexcept ImportError:\n    import statsmodels\n"
        "def f():\n    import scipy.special\n"
        "from . import sibling\n"
    )
    modules = sorted(module for _, module in top_level_imports(ast.parse(source)))
    assert modules == ["numpy", "pandas", "scipy", "statsmodels"]
