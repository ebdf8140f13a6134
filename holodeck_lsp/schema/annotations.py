"""Looking through type annotations (no pydantic here: the language server imports this at
start-up)."""

from __future__ import annotations

import types
from collections.abc import Iterator
from typing import Annotated, Any, Union, get_args, get_origin


def members(annotation: Any) -> Iterator[Any]:
    """The concrete types behind Optional / Union / Annotated wrappers."""
    origin = get_origin(annotation)
    if origin is Annotated:
        yield from members(get_args(annotation)[0])
    elif origin is Union or origin is types.UnionType:
        for arg in get_args(annotation):
            yield from members(arg)
    elif annotation is not type(None):
        yield annotation
