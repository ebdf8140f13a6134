"""Walk the models by YAML path: which keys are valid where, and what a field means.

Used for "did you mean" on unknown keys, and by the editor features (completion, hover).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

from holodeck_lsp.schema.annotations import members


def _step(annotation: Any, element: str | int) -> list[Any]:
    """Annotations reached from `annotation` by one path element."""
    found: list[Any] = []
    for member in members(annotation):
        origin = get_origin(member)
        if isinstance(member, type) and issubclass(member, BaseModel):
            info = member.model_fields.get(str(element))
            if info is not None:
                found.append(info.annotation)
        elif origin is list and isinstance(element, int):
            found.append(get_args(member)[0])
        elif origin is dict and isinstance(element, str):
            found.append(get_args(member)[1])
    return found


def models_at(root: type[BaseModel], path: Sequence[str | int]) -> list[type[BaseModel]]:
    """Every model a mapping at `path` could be (several for unions such as tools)."""
    annotations: list[Any] = [root]
    for element in path:
        if isinstance(element, str) and element.startswith("<"):
            continue  # a pydantic union tag, not a YAML key
        annotations = [nxt for annotation in annotations for nxt in _step(annotation, element)]
    models: list[type[BaseModel]] = []
    for annotation in annotations:
        for member in members(annotation):
            if isinstance(member, type) and issubclass(member, BaseModel):
                if member not in models:
                    models.append(member)
            elif get_origin(member) is list:
                continue
    return models


def keys_at(root: type[BaseModel], path: Sequence[str | int]) -> list[str]:
    """Valid keys of the mapping at `path`, in declaration order."""
    keys: list[str] = []
    for model in models_at(root, path):
        for name in model.model_fields:
            if name not in keys:
                keys.append(name)
    return keys


def field_at(root: type[BaseModel], path: Sequence[str | int]) -> FieldInfo | None:
    """The field definition a path ends on, if it names one."""
    if not path:
        return None
    for model in models_at(root, path[:-1]):
        info = model.model_fields.get(str(path[-1]))
        if info is not None:
            return info
    return None
