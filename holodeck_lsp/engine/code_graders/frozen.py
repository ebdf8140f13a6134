"""Read-only deep copies of what a grader is handed: a well-behaved grader cannot change the
session, the stored results or what later turns see by accident (see the package's trust
model). Subclasses of dict and list, so they compare equal to plain data and `json.dumps`."""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from typing import Any, NoReturn

from pydantic import BaseModel, ConfigDict

from holodeck_lsp.schema.results import ToolInvocation


class FrozenDict(dict[Any, Any]):
    """A `dict` that refuses changes. Being a real `dict`, it still works with `json.dumps`,
    pydantic serialisation and `==` against plain dicts; it holds copies, so even bypassing
    the guard (`dict.__setitem__(d, ...)`) changes nothing outside the grader."""

    __slots__ = ()

    def _read_only(self, *_args: object, **_kwargs: object) -> NoReturn:
        raise TypeError("the grader context is read-only")

    __setitem__ = _read_only
    __delitem__ = _read_only
    __ior__ = _read_only
    clear = _read_only
    pop = _read_only
    popitem = _read_only
    setdefault = _read_only
    update = _read_only

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(frozenset(self.items()))

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenDict, (dict(self),))


class FrozenList(list[Any]):
    """A `list` that refuses changes (compares equal to plain lists, serialises as one)."""

    __slots__ = ()

    def _read_only(self, *_args: object, **_kwargs: object) -> NoReturn:
        raise TypeError("the grader context is read-only")

    __setitem__ = _read_only
    __delitem__ = _read_only
    __iadd__ = _read_only
    __imul__ = _read_only
    append = _read_only
    extend = _read_only
    insert = _read_only
    pop = _read_only
    remove = _read_only
    clear = _read_only
    sort = _read_only
    reverse = _read_only

    def __hash__(self) -> int:  # type: ignore[override]
        return hash(tuple(self))

    def __reduce__(self) -> tuple[Any, ...]:
        return (FrozenList, (list(self),))


class FrozenToolInvocation(ToolInvocation):
    """A `ToolInvocation` whose fields cannot be reassigned and whose `args` / `result` are
    frozen copies (mappings become `FrozenDict`, lists `FrozenList`)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @classmethod
    def of(cls, invocation: ToolInvocation) -> FrozenToolInvocation:
        # model_construct: validation would turn the frozen containers back into dicts/lists.
        return cls.model_construct(
            _fields_set=set(invocation.model_fields_set),
            name=invocation.name,
            args=freeze(invocation.args),
            result=freeze(invocation.result),
            duration_ms=invocation.duration_ms,
            error=invocation.error,
            raw_arguments=invocation.raw_arguments,
            call_problem=invocation.call_problem,
        )

    @property
    def bytes(self) -> int:
        """`len(json.dumps(result, default=str))`: upstream's `ToolInvocation.bytes`, so a
        grader written for HoloDeck that reads it runs unchanged."""
        return len(json.dumps(self.result, default=str))


_IMMUTABLE = (str, bytes, int, float, complex, bool, type(None), range, frozenset)


def freeze(value: Any) -> Any:
    """A deep, read-only copy of plain data: mappings → FrozenDict, lists → FrozenList,
    sets → frozensets, pydantic models → deep copies (frozen for tool invocations). Other
    objects are deep-copied; an object that cannot be copied is passed as it is."""
    if isinstance(value, _IMMUTABLE):
        return value
    if isinstance(value, FrozenToolInvocation):
        return value
    if isinstance(value, ToolInvocation):
        return FrozenToolInvocation.of(value)
    if isinstance(value, Mapping):
        return FrozenDict({key: freeze(item) for key, item in value.items()})
    if isinstance(value, tuple):
        return tuple(freeze(item) for item in value)
    if isinstance(value, list):
        return FrozenList(freeze(item) for item in value)
    if isinstance(value, set):
        return frozenset(value)
    if isinstance(value, BaseModel):
        return value.model_copy(deep=True)
    try:
        return copy.deepcopy(value)
    except Exception:
        return value
