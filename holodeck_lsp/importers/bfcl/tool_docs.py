"""BFCL's `multi_turn_func_doc/*.json` (one function a line) as the suite's tool definitions:
name, description, parameters in JSON Schema (BFCL writes `dict`, `float`, `tuple`, `any`
where JSON Schema has `object`, `number`, `array` and no type)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from holodeck_lsp.checker.json_reading import loads_json
from holodeck_lsp.importers.bfcl.errors import ImportInputError
from holodeck_lsp.importers.bfcl.source import SourceFile

_TYPES = {"dict": "object", "float": "number", "tuple": "array"}


@dataclass(frozen=True, slots=True)
class ToolDoc:
    name: str
    class_name: str
    description: str
    #: Parameter name -> JSON Schema, in the function's order.
    parameters: dict[str, dict[str, Any]]
    required: tuple[str, ...]

    @property
    def order(self) -> list[str]:
        return list(self.parameters)


def json_schema(bfcl: Mapping[str, Any]) -> dict[str, Any]:
    """One BFCL parameter schema in JSON Schema's words."""
    schema: dict[str, Any] = {}
    for key, value in bfcl.items():
        if key == "type":
            if value != "any":
                schema["type"] = _TYPES.get(value, value)
        elif key == "items" and isinstance(value, Mapping):
            schema["items"] = json_schema(value)
        elif key == "properties" and isinstance(value, Mapping):
            schema["properties"] = {k: json_schema(v) for k, v in value.items()}
        elif key in ("description", "enum", "default", "required"):
            schema[key] = value
    return schema


def read_tool_docs(class_name: str, file: SourceFile) -> list[ToolDoc]:
    docs: list[ToolDoc] = []
    for number, line in enumerate(file.text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            raw = loads_json(line)
            parameters = raw["parameters"]
            properties = parameters.get("properties") or {}
            docs.append(
                ToolDoc(
                    name=str(raw["name"]),
                    class_name=class_name,
                    description=str(raw.get("description") or raw["name"]),
                    parameters={n: json_schema(s) for n, s in properties.items()},
                    required=tuple(parameters.get("required") or ()),
                )
            )
        except (json.JSONDecodeError, KeyError, TypeError, AttributeError) as error:
            raise ImportInputError(
                f"{file.label}: line {number}: not a BFCL function description "
                f"({type(error).__name__}: {error}); get the file again"
            ) from None
    return docs
