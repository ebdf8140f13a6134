"""The kinds of names `suite_names` finds (apart, so features use them without the YAML
reader being imported at start-up)."""

from __future__ import annotations

from enum import StrEnum


class NameKind(StrEnum):
    TOOL = "tool"  # a declared tool's `name:`
    EXPECTED_TOOL = "expected_tool"  # an expected_tools entry
    CASE = "case"  # a test case's `name:`
