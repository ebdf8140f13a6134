"""`type: function` tools: import each tool's function from its file (relative to the agent's
folder) so a backend can expose it with its real signature and docstring.

Importing runs the project's code: this happens only when a suite runs, which is trusted by
definition (the checker never does it).
"""

from __future__ import annotations

import importlib.util
import inspect
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any

from holodeck_lsp.checker.file_reading import max_file_bytes, too_large
from holodeck_lsp.runner.agent_code.agent_modules import agent_imports
from holodeck_lsp.runner.backend_errors import BackendInitError
from holodeck_lsp.schema.agent import Agent
from holodeck_lsp.schema.tools import FunctionTool


@dataclass(frozen=True, slots=True)
class LoadedTool:
    """A function tool ready to register with a backend."""

    name: str
    description: str
    function: Callable[..., Any]
    signature: inspect.Signature
    #: JSON Schema of the parameters from the YAML `parameters:` block, if given.
    parameters: dict[str, dict[str, Any]] | None = None

    @property
    def docstring(self) -> str:
        return inspect.getdoc(self.function) or self.description


_modules: dict[Path, ModuleType] = {}


def _import_file(path: Path) -> ModuleType:
    """Import a tool file once per run, under a private name so two agents' `tools.py`
    cannot collide in sys.modules."""
    resolved = path.resolve()
    cached = _modules.get(resolved)
    if cached is not None:
        return cached
    if not resolved.is_file():
        if resolved.exists() and not resolved.is_dir():  # a pipe would block the import
            raise BackendInitError(f"tool file {path} is not a regular file; point at a .py file")
        raise BackendInitError(f"tool file {path} does not exist")
    limit = max_file_bytes()
    if resolved.stat().st_size > limit:  # the import reads it whole (docs/checks.md)
        raise BackendInitError(f"tool file {too_large(path, resolved.stat().st_size, limit)}")
    name = f"holodeck_tools_{abs(hash(resolved)):x}_{resolved.stem}"
    spec = importlib.util.spec_from_file_location(name, resolved)
    if spec is None or spec.loader is None:
        raise BackendInitError(f"tool file {path} cannot be imported")
    module = importlib.util.module_from_spec(spec)
    try:
        # Its folder first on sys.path, so the tool file imports its neighbours — this
        # folder's, whatever another agent's folder imported under the same names.
        with agent_imports(resolved.parent):
            spec.loader.exec_module(module)
    except Exception as error:
        raise BackendInitError(
            f"importing tool file {path} failed: {type(error).__name__}: {error}"
        ) from error
    _modules[resolved] = module
    return module


def load_function_tools(agent: Agent, agent_dir: Path) -> list[LoadedTool]:
    """Every function tool of the agent, imported; raises BackendInitError naming the tool."""
    loaded: list[LoadedTool] = []
    for tool in agent.tools or []:
        if not isinstance(tool, FunctionTool):
            continue
        module = _import_file(agent_dir / tool.file)
        function = getattr(module, tool.function, None)
        if not callable(function):
            raise BackendInitError(
                f"tool {tool.name!r}: {tool.file} has no function {tool.function!r}"
            )
        loaded.append(
            LoadedTool(
                name=tool.name,
                description=tool.description,
                function=function,
                signature=inspect.signature(function),
                parameters=tool.parameters,
            )
        )
    return loaded
