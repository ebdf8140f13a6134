"""What every tool type shares: the `name` / `description` / `defer_loading` keys, and the
`source:` check of the two retrieval tools."""

from __future__ import annotations

from pydantic import Field

from holodeck_lsp.schema.base import StrictModel, fault
from holodeck_lsp.schema.codes import Code

TOOL_NAME_PATTERN = r"^[0-9A-Za-z_]+$"
SOURCE_SCHEMES: tuple[str, ...] = ("az", "file", "http", "https", "s3")


def check_source_scheme(value: str) -> str:
    """A `source:` is a local path, or a URI with one of the schemes HoloDeck can fetch."""
    if "://" not in value:
        return value
    scheme = value.split("://", 1)[0].lower()
    if scheme not in SOURCE_SCHEMES:
        raise fault(
            Code.INVALID_VALUE,
            f"unsupported URI scheme '{scheme}://' in source; use a local path or a "
            f"{', '.join(s + '://' for s in SOURCE_SCHEMES)} URI",
        )
    return value


class ToolBase(StrictModel):
    """Keys every tool type has."""

    name: str = Field(
        pattern=TOOL_NAME_PATTERN,
        description="Name the model calls the tool by: letters, digits and underscores only. "
        "Required; must be unique among the agent's tools.",
    )
    description: str = Field(
        description="What the tool does, shown to the model so it can decide when to call "
        "it. Required."
    )
    defer_loading: bool = Field(
        default=True,
        description="When true the tool is left out of the initial context and found on "
        "demand by tool search; set false for tools the agent must always see. Default true.",
    )
