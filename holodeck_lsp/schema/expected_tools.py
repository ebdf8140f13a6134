"""`expected_tools` entries: a tool the agent must call, by name, optionally with asserted
arguments and a count. Shared by scripted turns (schema/test_case.py) and the checks of a
simulated conversation (schema/simulated_user.py)."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import Discriminator, Field, Tag, field_validator

from holodeck_lsp.schema.base import NonBlankStr, StrictModel, fault, name_or_mapping
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.matchers import ArgMatcher


class ExpectedTool(StrictModel):
    """An assertion that the agent called a tool in this turn, optionally with arguments."""

    name: NonBlankStr = Field(
        description="Tool name, matched as a case-sensitive substring of the called tool's "
        "name (so `subtract` also matches `mcp__tools__subtract`)."
    )
    # Keys are not forced to be strings: HoloDeck keeps `{1: 2}` as it is (such an argument
    # can never match a call, whose arguments are named by strings; HD204 says so).
    args: dict[Any, ArgMatcher] | None = Field(
        default=None,
        description="Asserted arguments by name. Each value is a literal (exact; 206588 "
        'equals 206588.0), `{fuzzy: "206588"}` or `{regex: "^2009.*$"}`. Arguments '
        "not listed are ignored.",
    )
    count: int = Field(
        default=1,
        strict=True,
        description="At least this many calls in the turn must match. Default 1.",
        json_schema_extra={"minimum": 1},
    )

    @field_validator("count", mode="before")
    @classmethod
    def _bool_is_an_int(cls, value: Any) -> Any:
        # HoloDeck checks `isinstance(count, int)`, which a YAML boolean passes.
        return int(value) if isinstance(value, bool) else value

    @field_validator("count")
    @classmethod
    def _at_least_one(cls, value: int) -> int:
        if value < 1:
            raise fault(
                Code.BAD_COUNT,
                f"count must be at least 1 (got {value}); asserting that a tool is not "
                "called is not supported",
            )
        return value


#: One `expected_tools` entry: a bare tool name or an object with `args` / `count`.
ExpectedToolEntry = Annotated[
    Annotated[str, Tag("<name>")] | Annotated[ExpectedTool, Tag("<mapping>")],
    Discriminator(
        name_or_mapping,
        custom_error_type=Code.BAD_EXPECTED_TOOL.value,
        custom_error_message="an expected_tools entry is a tool name or a mapping with "
        "`name` (and optional `args`, `count`)",
    ),
]
