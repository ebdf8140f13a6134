"""A function tool's parameters as a JSON object schema: the YAML `parameters:` entry of a
parameter wins, else its Python annotation."""

from __future__ import annotations

import enum
import inspect
import types
import typing
from typing import Any

from holodeck_lsp.runner.agent_code.function_tools import LoadedTool


def _type_schema(annotation: Any) -> tuple[dict[str, Any], bool]:
    """JSON schema for a Python annotation, and whether None is allowed."""
    if annotation is inspect.Parameter.empty or annotation is Any:
        return {}, False
    if annotation is None or annotation is type(None):
        return {"type": "null"}, True
    origin = typing.get_origin(annotation)
    args = typing.get_args(annotation)
    if origin is typing.Annotated:
        schema, nullable = _type_schema(args[0])
        description = next((a for a in args[1:] if isinstance(a, str)), None)
        return ({**schema, "description": description} if description else schema), nullable
    if origin is typing.Union or origin is types.UnionType:
        members = [a for a in args if a is not type(None)]
        nullable = len(members) < len(args)
        if len(members) == 1:
            return _type_schema(members[0])[0], nullable
        return {"anyOf": [_type_schema(a)[0] for a in members]}, nullable
    if origin is typing.Literal:
        return {"enum": list(args)}, False
    simple = {bool: "boolean", int: "integer", float: "number", str: "string", dict: "object"}
    if annotation in simple:
        return {"type": simple[annotation]}, False
    if origin is dict:
        return {"type": "object"}, False
    if annotation in (list, tuple, set, frozenset) or origin in (list, tuple, set, frozenset):
        if args and origin is not tuple:
            return {"type": "array", "items": _type_schema(args[0])[0]}, False
        return {"type": "array"}, False
    if isinstance(annotation, type) and issubclass(annotation, enum.Enum):
        return {"enum": [member.value for member in annotation]}, False
    return {}, False


def _declared(entry: dict[str, Any], needed: bool) -> tuple[dict[str, Any], bool]:
    """A YAML `parameters:` entry as a property schema, and whether it is required. Its
    `required: true|false` is HoloDeck's flag, not JSON Schema (where `required` is the
    object's list of names): it decides the list and stays out of the property, as in the
    Semantic Kernel backend. Left in, the Claude Code CLI finds the tool's schema invalid
    and drops the tool without a word."""
    flag = entry.get("required")
    schema = {key: value for key, value in entry.items() if key != "required"}
    return schema, flag if isinstance(flag, bool) else needed


def parameters_schema(tool: LoadedTool) -> dict[str, Any]:
    """The tool's parameters as a JSON object schema: the YAML `parameters:` entry of a
    parameter wins, else its annotation; parameters without a default (and not Optional) are
    required, unless the entry says `required: false` (or true)."""
    try:
        hints = typing.get_type_hints(tool.function, include_extras=True)
    except Exception:  # unresolvable string annotations: fall back to "any"
        hints = {}
    declared = tool.parameters or {}
    properties: dict[str, Any] = {}
    required: list[str] = []
    takes_kwargs = False
    for name, parameter in tool.signature.parameters.items():
        if parameter.kind is inspect.Parameter.VAR_KEYWORD:
            takes_kwargs = True
            continue
        if parameter.kind is inspect.Parameter.VAR_POSITIONAL:
            continue
        schema, nullable = _type_schema(hints.get(name, parameter.annotation))
        needed = parameter.default is inspect.Parameter.empty and not nullable
        if name in declared:
            schema, needed = _declared(declared[name], needed)
        properties[name] = schema
        if needed:
            required.append(name)
    if takes_kwargs:  # YAML-declared extras reach **kwargs
        for name, entry in declared.items():
            if name not in properties:
                properties[name], needed = _declared(entry, False)
                if needed:
                    required.append(name)
    result: dict[str, Any] = {"type": "object", "properties": properties}
    if required:
        result["required"] = required
    return result
