"""`type: function` — a Python function from a local file."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field

from holodeck_lsp.schema.base import NonBlankStr
from holodeck_lsp.schema.tools.base import ToolBase
from holodeck_lsp.schema.tools.catalogue import tool_type_doc


class FunctionTool(ToolBase):
    """A Python function the agent can call."""

    type: Literal["function"] = Field(
        default="function",
        description=tool_type_doc("function"),
    )
    file: NonBlankStr = Field(
        description="Python file defining the function, relative to the agent.yaml "
        "directory. Required."
    )
    function: NonBlankStr = Field(description="Name of the function in `file`. Required.")
    parameters: dict[str, dict[str, Any]] | None = Field(
        default=None,
        description="Parameter schema: a mapping of parameter name to its JSON-schema-like "
        "definition (type, description, ...). Optional.",
    )
