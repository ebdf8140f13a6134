"""Test cases validated once, re-used by the next check of an edited version of the same text.

Validating a 1,000-case suite builds ~1,000 `TestCase` models each time, most of a check once
the YAML is parsed incrementally. An unchanged case keeps its raw value object across
incremental parses (`incremental_parse` re-uses the previous values), so the model validated
from that very object can be handed to pydantic again: a model instance passes a model field
as it is. The cases are validated alone, which gives the same model as validating them inside
the agent (a `TestCase` depends on nothing outside itself). A case that does not validate is
left raw, so the agent's validation reports its errors exactly where and how it always does.
"""

from __future__ import annotations

from typing import Any

from pydantic import ValidationError

from holodeck_lsp.schema.test_case import TestCase


class ValidatedCases:
    """`TestCase` models by the identity of the raw case they were validated from."""

    def __init__(self, known: dict[int, tuple[Any, TestCase]] | None = None) -> None:
        # id(raw) -> (raw, model); holding `raw` keeps its id from being re-used.
        self._known = known or {}

    @classmethod
    def of(cls, cases: list[Any], models: list[TestCase]) -> ValidatedCases:
        """The models an agent's validation made of its raw `cases` (in the same order)."""
        return cls({id(raw): (raw, model) for raw, model in zip(cases, models, strict=True)})

    def models_for(self, cases: list[Any]) -> tuple[list[Any], ValidatedCases]:
        """`cases` with every case that validates replaced by its model (earlier models
        re-used), and the models to re-use next time."""
        known: dict[int, tuple[Any, TestCase]] = {}
        out: list[Any] = []
        for raw in cases:
            found = self._known.get(id(raw))
            if found is None or found[0] is not raw:
                found = _validated(raw)
            if found is None:
                out.append(raw)
            else:
                known[id(raw)] = found
                out.append(found[1])
        return out, ValidatedCases(known)


def _validated(raw: Any) -> tuple[Any, TestCase] | None:
    if not isinstance(raw, dict):
        return None
    try:
        return raw, TestCase.model_validate(raw)
    except ValidationError:
        return None
