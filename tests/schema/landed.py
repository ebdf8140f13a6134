"""`assert_landed`: a model accepted a mapping *and kept what it said* — every key given is a
field whose value, read back, is the value given (enums by value, nested models as their
fields, secrets as their secret). An `*_accepted` test that only validated would pass for a
model that silently dropped or defaulted the field."""

from __future__ import annotations

import enum
from typing import Any

from pydantic import BaseModel, SecretStr


def _read_back(value: Any) -> Any:
    if isinstance(value, BaseModel):
        return value
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, SecretStr):
        return value.get_secret_value()
    return value


def assert_landed(model: BaseModel, given: Any, where: str = "") -> None:
    assert isinstance(given, dict), where
    by_alias = {(info.alias or name): name for name, info in type(model).model_fields.items()}
    for key, expected in given.items():
        name = by_alias.get(key, key)
        assert hasattr(model, name), f"{where}{key}: not a field of {type(model).__name__}"
        _same(_read_back(getattr(model, name)), expected, f"{where}{key}")


def _same(actual: Any, expected: Any, where: str) -> None:
    if isinstance(actual, BaseModel):
        if isinstance(expected, dict):
            assert_landed(actual, expected, f"{where}.")
        else:  # a model built from a shorthand (a string, say): it exists, its fields vary
            assert actual is not None, where
        return
    if isinstance(actual, dict) and isinstance(expected, dict):
        assert set(actual) == set(expected), where
        for key in expected:
            _same(_read_back(actual[key]), expected[key], f"{where}.{key}")
        return
    if isinstance(actual, list | tuple) and isinstance(expected, list | tuple):
        assert len(actual) == len(expected), where
        for index, (item, want) in enumerate(zip(actual, expected, strict=True)):
            _same(_read_back(item), want, f"{where}[{index}]")
        return
    if isinstance(expected, str) and isinstance(actual, str):
        # The schema strips surrounding blanks of some strings, as upstream's does.
        assert actual.strip() == expected.strip() or actual == expected, (where, actual)
        return
    if isinstance(expected, str) and not expected.strip() and actual is None:
        return  # a blank string the schema reads as "not set", as upstream's does
    assert actual == expected, (where, actual, expected)
