"""Import a code grader `module.path:callable` as HoloDeck does, for a run.

This is the one place that puts an agent's folder on `sys.path` and imports its grader
modules (user code, executed in this process: trusted suites only). The engine grades with the
callable it is given (`engine.code_graders.run_code_grader`); the language server's checker
never imports graders in-process (`config.graders` resolves them statically, or in a child
process for trusted workspaces), so the checker does not need this module.
"""

from __future__ import annotations

import importlib
import sys
import threading
from collections.abc import Callable
from pathlib import Path

from holodeck_lsp.engine.code_graders import GraderContext
from holodeck_lsp.runner.agent_code.agent_modules import agent_imports
from holodeck_lsp.schema.metrics import GRADER_PATH

__all__ = ["clear_grader_cache", "load_grader"]

Grader = Callable[[GraderContext], object]

_cache: dict[tuple[str, Path], Grader] = {}
_cache_lock = threading.RLock()


def load_grader(spec: str, agent_dir: Path) -> Callable[[GraderContext], object]:
    """Import the grader `module.path:callable` as HoloDeck does: the agent's folder goes first
    on `sys.path`, then `importlib.import_module` and `getattr` — inside the agent folder's
    import context (agent_modules.py), so two agents' `graders.py` are two modules. Cached
    per (spec, agent folder).

    This executes the module: only call it for a suite you mean to run, i.e. trusted code (the
    language server checks graders without importing them, see `config.graders`).

    Raises ImportError (malformed spec, module missing or failing to import, or a module of
    that name already imported from elsewhere), AttributeError (no such callable) or
    TypeError (not callable); each message names the spec.
    """
    folder = agent_dir.resolve()
    key = (spec, folder)
    with _cache_lock:
        cached = _cache.get(key)
        if cached is not None:
            return cached
        grader = _import_grader(spec, folder)
        _cache[key] = grader
        return grader


def clear_grader_cache() -> None:
    """Forget loaded graders (their modules stay in `sys.modules`)."""
    with _cache_lock:
        _cache.clear()


def _import_grader(spec: str, folder: Path) -> Grader:
    if not GRADER_PATH.match(spec):
        raise ImportError(f"grader '{spec}' is not of the form 'module.path:callable'")
    module_name, _, attribute = spec.partition(":")
    entry = str(folder)
    if entry not in sys.path:  # stays: a grader may import a neighbour when it is called
        sys.path.insert(0, entry)
    importlib.invalidate_caches()  # the module may have been written since the last import
    try:
        # This agent folder's modules, whatever another agent folder imported under the
        # same names (agent_modules.py).
        with agent_imports(folder):
            module = importlib.import_module(module_name)
            _check_origin(spec, module_name, folder)
    except ImportError as exc:
        if exc.name == module_name and str(exc).startswith(f"grader '{spec}'"):
            raise
        raise ImportError(
            f"grader '{spec}': cannot import module '{module_name}' (looked in {folder} "
            f"first): {exc}",
            name=module_name,
        ) from exc
    except Exception as exc:
        raise ImportError(
            f"grader '{spec}': importing module '{module_name}' raised {_describe(exc)}",
            name=module_name,
        ) from exc
    try:
        value = getattr(module, attribute)
    except AttributeError as exc:
        where = getattr(module, "__file__", None) or module_name
        raise AttributeError(
            f"grader '{spec}': module '{module_name}' has no attribute '{attribute}' "
            f"(looked in {where})"
        ) from exc
    if not callable(value):
        raise TypeError(f"grader '{spec}' is not callable: '{attribute}' is {type(value).__name__}")
    grader: Grader = value
    return grader


def _check_origin(spec: str, module_name: str, folder: Path) -> None:
    """One process, several agents: a second agent's `graders.py` would silently get the first
    agent's module, already in `sys.modules` under the same name. Refuse instead."""
    top = module_name.partition(".")[0]
    local = folder / f"{top}.py"
    local_package = folder / top
    if not (local.is_file() or local_package.is_dir()):
        return
    loaded = sys.modules.get(top)
    if loaded is None:
        return
    places = [getattr(loaded, "__file__", None), *(getattr(loaded, "__path__", None) or ())]
    if any(_is_local(place, local, local_package) for place in places if place):
        return
    elsewhere = next((str(p) for p in places if p), "elsewhere")
    raise ImportError(
        f"grader '{spec}': module '{top}' is already imported from {elsewhere}, not from "
        f"{folder}; give the grader module a name of its own (e.g. a package per agent)",
        name=module_name,
    )


def _is_local(place: str, local: Path, local_package: Path) -> bool:
    try:
        path = Path(place).resolve()
    except OSError:
        return False
    return path in (local, local_package) or local_package in path.parents


def _describe(exc: BaseException) -> str:
    message = str(exc)
    name = type(exc).__name__
    return f"{name}: {message}" if message else name
