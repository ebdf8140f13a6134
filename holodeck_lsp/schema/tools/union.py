"""The `tools:` entry: a union of the tool models dispatched on `type:`, with a precise
diagnostic for a missing or unknown type before pydantic dispatches."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import BeforeValidator, Discriminator, Tag

from holodeck_lsp.schema.base import fault
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.schema.tools.base import ToolBase
from holodeck_lsp.schema.tools.catalogue import TOOL_TYPES
from holodeck_lsp.schema.tools.function import FunctionTool
from holodeck_lsp.schema.tools.hierarchical_document import HierarchicalDocumentTool
from holodeck_lsp.schema.tools.mcp import MCPTool
from holodeck_lsp.schema.tools.prompt import PromptTool
from holodeck_lsp.schema.tools.vectorstore import VectorstoreTool


def _tag(tool_type: str) -> str:
    """Union tag of a tool type; angle brackets let the loader drop it from error paths."""
    return f"<{tool_type}>"


def _one_of(values: tuple[str, ...]) -> str:
    return ", ".join(values)


#: Model class of each tool type.
TOOL_MODELS: dict[str, type[ToolBase]] = {
    "function": FunctionTool,
    "mcp": MCPTool,
    "vectorstore": VectorstoreTool,
    "prompt": PromptTool,
    "hierarchical_document": HierarchicalDocumentTool,
}

_TYPE_LIST = _one_of(TOOL_TYPES)


def _check_tool_type(value: Any) -> Any:
    """Give a precise diagnostic before the union dispatches on `type:`."""
    if isinstance(value, ToolBase):
        return value
    if not isinstance(value, dict):
        raise fault(
            Code.WRONG_TYPE,
            f"a tool must be a mapping with a `type:` key ({_TYPE_LIST})",
        )
    if "type" not in value:
        raise fault(
            Code.MISSING_FIELD,
            f"tool has no `type:`; add one of: {_TYPE_LIST}",
        )
    tool_type = value["type"]
    if not isinstance(tool_type, str) or tool_type not in TOOL_TYPES:
        shown = "empty" if tool_type is None else repr(tool_type)
        raise fault(
            Code.INVALID_CHOICE,
            f"tool type {shown} is not known; use one of: {_TYPE_LIST}",
            at="type",
        )
    return value


def _tool_tag(value: Any) -> str | None:
    tool_type = value.get("type") if isinstance(value, dict) else getattr(value, "type", None)
    if isinstance(tool_type, str) and tool_type in TOOL_TYPES:
        return _tag(tool_type)
    return None


#: One entry of `tools:`, dispatched on its `type:` key.
ToolUnion = Annotated[
    Annotated[FunctionTool, Tag("<function>")]
    | Annotated[MCPTool, Tag("<mcp>")]
    | Annotated[VectorstoreTool, Tag("<vectorstore>")]
    | Annotated[PromptTool, Tag("<prompt>")]
    | Annotated[HierarchicalDocumentTool, Tag("<hierarchical_document>")],
    Discriminator(
        _tool_tag,
        custom_error_type=Code.INVALID_CHOICE.value,
        custom_error_message=f"tool `type:` must be one of: {_TYPE_LIST}",
    ),
    BeforeValidator(_check_tool_type),
]

#: Any tool model.
Tool = FunctionTool | MCPTool | VectorstoreTool | PromptTool | HierarchicalDocumentTool
