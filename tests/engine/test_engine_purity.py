"""engine/ is pure grading: functions of the results they are given. Read from the source
(with `ast`, nothing imported), every module under holodeck_lsp/engine/ must not:

* import `importlib`, `os`, `subprocess`, `socket`, `shutil`, `multiprocessing`, `signal` or
  `asyncio` — loading user code, reading the environment, processes, the network and event
  loops are the runner's business (`runner.grader_import`, `runner.grader_loading`);
* touch `sys.path` or `sys.modules` (importing `sys` itself is allowed: nothing in the engine
  needs it today, but reading `sys.version` is not impure);
* import `holodeck_lsp.runner`, `holodeck_lsp.checker`, `holodeck_lsp.server` or
  `holodeck_lsp.cli` — the arrows point at the engine, never out of it.

Allowed on purpose: `threading` and `contextvars` (a code grader is user code given a time
limit: `run_code_grader` calls it in a daemon thread with the caller's context), `time`
(durations in results), `logging`, and the NLP libraries imported lazily by their metrics
(see test_engine_boundaries.py for what importing the engine may load).
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import holodeck_lsp.engine

ENGINE = Path(holodeck_lsp.engine.__file__).parent
FORBIDDEN_MODULES = frozenset(
    {"importlib", "os", "subprocess", "socket", "shutil", "multiprocessing", "signal", "asyncio"}
)
FORBIDDEN_PACKAGES = (
    "holodeck_lsp.runner",
    "holodeck_lsp.checker",
    "holodeck_lsp.settings",
    "holodeck_lsp.reports",
    "holodeck_lsp.server",
)
FORBIDDEN_EXACT = frozenset({"holodeck_lsp.cli"})
SYS_STATE = frozenset({"path", "modules", "meta_path", "path_hooks"})
MODULES = sorted(ENGINE.rglob("*.py"))


def imported_names(tree: ast.AST) -> list[tuple[int, str]]:
    names: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [(node.lineno, alias.name) for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append((node.lineno, node.module))
            # `from holodeck_lsp import runner` names the package in the alias.
            names += [(node.lineno, f"{node.module}.{alias.name}") for alias in node.names]
        elif isinstance(node, ast.Call) and _called(node) in {"__import__", "import_module"}:
            names.append((node.lineno, "importlib"))
    return names


def _called(call: ast.Call) -> str | None:
    func = call.func
    if isinstance(func, ast.Name):
        return func.id
    if isinstance(func, ast.Attribute):
        return func.attr
    return None


def impurities(source: str) -> list[str]:
    tree = ast.parse(source)
    found: list[str] = []
    for line, name in imported_names(tree):
        outside = name in FORBIDDEN_EXACT or name.startswith(FORBIDDEN_PACKAGES)
        if name.partition(".")[0] in FORBIDDEN_MODULES or outside:
            found.append(f"line {line}: imports {name}")
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id == "sys"
            and node.attr in SYS_STATE
        ):
            found.append(f"line {node.lineno}: uses sys.{node.attr}")
    return sorted(set(found))


def test_the_engine_has_modules_to_check() -> None:
    names = {path.name for path in MODULES}
    assert {"timed_call.py", "case_grading.py", "turn_grading.py"} <= names


@pytest.mark.parametrize("path", MODULES, ids=lambda p: str(p.relative_to(ENGINE)))
def test_engine_module_is_pure(path: Path) -> None:
    assert impurities(path.read_text(encoding="utf-8")) == []


@pytest.mark.parametrize(
    "source",
    [
        "import os\n",
        "import importlib.util\n",
        "from subprocess import run\n",
        "import socket as s\n",
        "import sys\nsys.path.insert(0, 'x')\n",
        "import sys\nsys.modules.pop('x')\n",
        "from holodeck_lsp.runner.cassette import Cassette\n",
        "from holodeck_lsp import checker\n",
        "def f():\n    from holodeck_lsp.server import core\n",
        "m = __import__('graders')\n",
    ],
)
def test_the_check_catches_each_kind_of_impurity(source: str) -> None:
    assert impurities(source) != []


def test_the_check_allows_what_grading_needs() -> None:
    source = (
        "import threading, contextvars, time, logging, json, re, math\n"
        "import sys\nversion = sys.version_info\n"
        "from holodeck_lsp.schema.results import TurnResult\n"
        "from holodeck_lsp.engine.rollup import summarize\n"
    )
    assert impurities(source) == []
