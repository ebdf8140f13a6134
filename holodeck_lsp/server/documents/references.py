"""What a YAML value refers to, for hover and go to definition: an expected tool's declared
tool, a function tool's Python function, a `grader:`'s function. Found statically (files are
read and parsed with `ast`, never imported), from the raw YAML data so that it works while
validation reports errors."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from enum import StrEnum
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.graders.problems import parse_grader_path
from holodeck_lsp.checker.python_source.bindings import NameBinding
from holodeck_lsp.checker.python_source.module_names import top_level_names
from holodeck_lsp.checker.python_source.module_search import default_search_dirs, search_module
from holodeck_lsp.checker.python_source.signatures import FunctionSignature, function_signature
from holodeck_lsp.server.documents.node_at import NodeAt


class Target(StrEnum):
    """What kind of reference the cursor is on."""

    EXPECTED_TOOL = "expected_tool"  # an expected_tools entry's name (or bare name)
    TOOL_NAME = "tool_name"  # `tools[i].name`
    TOOL_FUNCTION = "tool_function"  # `tools[i].function`
    GRADER = "grader"  # a code metric's `grader:`
    METRIC = "metric"  # a standard metric's `metric:`


@dataclass(frozen=True, slots=True)
class Reference:
    target: Target
    text: str
    #: The path of the mapping holding the value (the tool, the metric).
    owner: tuple[str | int, ...]


def reference_at(at: NodeAt) -> Reference | None:
    """The reference the cursor is on (a scalar value only), if any."""
    if at.on_key or not isinstance(at.node.value, str):
        return None
    path, text = at.path, at.node.value
    if len(path) >= 2 and path[-2] == "expected_tools" and isinstance(path[-1], int):
        return Reference(Target.EXPECTED_TOOL, text, path)
    if len(path) >= 3 and path[-3] == "expected_tools" and path[-1] == "name":
        return Reference(Target.EXPECTED_TOOL, text, path[:-1])
    if len(path) == 3 and path[0] == "tools" and path[-1] in ("name", "function"):
        target = Target.TOOL_NAME if path[-1] == "name" else Target.TOOL_FUNCTION
        return Reference(target, text, path[:-1])
    if path and path[-1] == "grader":
        return Reference(Target.GRADER, text, path[:-1])
    if path and path[-1] == "metric":
        return Reference(Target.METRIC, text, path[:-1])
    return None


def declared_tool(data: Any, name: str) -> Mapping[str, Any] | None:
    """The `tools:` entry called `name` (the last one, as later entries win in HoloDeck)."""
    tools = data.get("tools") if isinstance(data, Mapping) else None
    found: Mapping[str, Any] | None = None
    if isinstance(tools, list):
        for tool in tools:
            if isinstance(tool, Mapping) and tool.get("name") == name:
                found = tool
    return found


def tool_function(tool: Mapping[str, Any], agent_dir: Path) -> FunctionSignature | None:
    """A function tool's Python function, read from its `file`."""
    file, function = tool.get("file"), tool.get("function")
    if tool.get("type") != "function" or not isinstance(file, str) or not isinstance(function, str):
        return None
    return function_signature(agent_dir / file, function)


@dataclass(frozen=True, slots=True)
class GraderTarget:
    spec: str
    module: str
    attribute: str
    path: Path | None
    binding: NameBinding | None
    signature: FunctionSignature | None


def grader_target(spec: str, agent_dir: Path) -> GraderTarget | None:
    """Where `module.path:callable` lives, found without importing anything."""
    parts = parse_grader_path(spec.strip())
    if parts is None:
        return None
    module, attribute = parts
    location = search_module(module, default_search_dirs(agent_dir)).location
    path = location.path if location is not None else None
    if path is None or path.suffix != ".py" or not path.is_file():
        return GraderTarget(spec, module, attribute, path, None, None)
    binding = top_level_names(path).lookup(attribute)
    return GraderTarget(spec, module, attribute, path, binding, function_signature(path, attribute))


def render_signature(signature: FunctionSignature) -> str:
    """`def name(a: float, b: float = 1) -> float` as written."""
    parts: list[str] = []
    keyword_only_marked = False
    positional_only = False
    for parameter in signature.parameters:
        kind = parameter.kind.value
        if positional_only and kind != "positional_only":
            parts.append("/")
            positional_only = False
        if kind == "positional_only":
            positional_only = True
        text = parameter.name
        if kind == "var_positional":
            text, keyword_only_marked = "*" + text, True
        elif kind == "var_keyword":
            text = "**" + text
        elif kind == "keyword_only" and not keyword_only_marked:
            parts.append("*")
            keyword_only_marked = True
        if parameter.annotation:
            text += f": {parameter.annotation}"
        if parameter.default is not None:
            text += f" = {parameter.default}" if parameter.annotation else f"={parameter.default}"
        parts.append(text)
    if positional_only:
        parts.append("/")
    prefix = "async def" if signature.is_async else "def"
    returns = f" -> {signature.returns}" if signature.returns else ""
    return f"{prefix} {signature.name}({', '.join(parts)}){returns}"
