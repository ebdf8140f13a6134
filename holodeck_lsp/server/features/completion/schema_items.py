"""Completion candidates the schema knows: the keys of the mapping at the cursor, the fixed
values of a field (Literal, Enum, bool), and what the metric and tool catalogues say of each."""

from __future__ import annotations

import enum
from collections.abc import Mapping
from typing import Any, Literal, get_args, get_origin

from holodeck_lsp.schema.annotations import members
from holodeck_lsp.server.features.completion.context import Context
from holodeck_lsp.server.features.completion.item_builder import ItemBuilder, Kind


def choices_of(annotation: Any) -> list[str]:
    """The fixed values an annotation allows (Literal, Enum, bool)."""
    found: list[str] = []
    for member in members(annotation):
        if get_origin(member) is Literal:
            found.extend(str(arg) for arg in get_args(member))
        elif isinstance(member, type) and issubclass(member, enum.Enum):
            found.extend(str(item.value) for item in member)
        elif member is bool:
            found.extend(("true", "false"))
    return list(dict.fromkeys(found))


def models_at_cursor(ctx: Context) -> list[Any]:
    """The models the mapping at the cursor could be; for unions, the one its `type:` names."""
    from holodeck_lsp.schema.agent import Agent
    from holodeck_lsp.schema.introspect import models_at

    models = models_at(Agent, ctx.path)
    declared = ctx.siblings.get("type", "").strip("\"'")
    if declared and len(models) > 1:
        chosen = [
            model
            for model in models
            if "type" in model.model_fields
            and declared in choices_of(model.model_fields["type"].annotation)
        ]
        return chosen or models
    return models


def _is_list(annotation: Any) -> bool:
    return any(get_origin(member) is list for member in members(annotation))


def _is_mapping(annotation: Any) -> bool:
    from pydantic import BaseModel

    return any(
        get_origin(member) is dict or (isinstance(member, type) and issubclass(member, BaseModel))
        for member in members(annotation)
    )


def add_keys(ctx: Context, out: ItemBuilder, indent: str, present: set[str]) -> None:
    for model in models_at_cursor(ctx):
        for name, info in model.model_fields.items():
            if name in present:
                continue
            present.add(name)
            if _is_list(info.annotation):
                body = f"{name}:\n{indent}  - $0"
            elif _is_mapping(info.annotation) and not choices_of(info.annotation):
                body = f"{name}:\n{indent}  $0"
            else:
                body = f"{name}: $0"
            out.add(name, body, Kind.Property, snippet=True, documentation=info.description or None)


def catalogue_docs(ctx: Context, key: str) -> Mapping[str, str]:
    """What the metric and tool-type catalogues say about each value of `key` here."""
    from holodeck_lsp.schema.metric_catalogue import KIND_DOCS, RAG_METRICS, STANDARD_METRICS
    from holodeck_lsp.schema.tools.catalogue import TOOL_CATALOGUE

    path = ctx.path
    if key == "type" and len(path) == 2 and path[0] == "tools":
        return {
            name: f"{spec.doc}\n\n{spec.requirements()}" for name, spec in TOOL_CATALOGUE.items()
        }
    if key == "type" and ("metrics" in path[-2:] or "evaluations" in path[-2:]):
        return KIND_DOCS
    if key == "metric":
        return {name: spec.doc for name, spec in STANDARD_METRICS.items()}
    if key == "metric_type":
        return {name: spec.doc for name, spec in RAG_METRICS.items()}
    return {}


def field_choices(ctx: Context, key: str) -> list[str]:
    found: list[str] = []
    for model in models_at_cursor(ctx):
        info = model.model_fields.get(key)
        if info is not None:
            found.extend(choices_of(info.annotation))
    return list(dict.fromkeys(found))
