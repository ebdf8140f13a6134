"""`tools:` — the tools an agent may call.

Each entry is a mapping whose `type:` key picks the model: `function`, `mcp`, `vectorstore`,
`prompt` or `hierarchical_document` (the catalogue, `tools.catalogue`, lists them with their
docs and required keys). HoloDeck has no default type: an entry without `type:`, or with any
other value, is rejected, and so is every key the chosen type does not define.

Checks that need the file system (does `file:` exist, does `source:` exist, is the function
really defined in the module) are left to later layers; these models only look at the YAML.

One module per tool type; this package re-exports the public names, so
`holodeck_lsp.schema.tools` imports as it did when it was one module.
"""

from __future__ import annotations

from holodeck_lsp.schema.tools.base import ToolBase
from holodeck_lsp.schema.tools.catalogue import TOOL_CATALOGUE, TOOL_TYPES, ToolTypeSpec
from holodeck_lsp.schema.tools.function import FunctionTool
from holodeck_lsp.schema.tools.hierarchical_document import (
    ChunkingStrategy,
    DocumentDomain,
    HierarchicalDocumentTool,
    SearchMode,
)
from holodeck_lsp.schema.tools.mcp import CommandType, MCPTool, TransportType
from holodeck_lsp.schema.tools.prompt import PromptTool
from holodeck_lsp.schema.tools.storage import (
    DatabaseConfig,
    DatabaseProvider,
    DatabaseRef,
    KeywordIndexConfig,
)
from holodeck_lsp.schema.tools.union import TOOL_MODELS, Tool, ToolUnion
from holodeck_lsp.schema.tools.vectorstore import VectorstoreTool

__all__ = [
    "TOOL_CATALOGUE",
    "TOOL_MODELS",
    "TOOL_TYPES",
    "ChunkingStrategy",
    "CommandType",
    "DatabaseConfig",
    "DatabaseProvider",
    "DatabaseRef",
    "DocumentDomain",
    "FunctionTool",
    "HierarchicalDocumentTool",
    "KeywordIndexConfig",
    "MCPTool",
    "PromptTool",
    "SearchMode",
    "Tool",
    "ToolBase",
    "ToolTypeSpec",
    "ToolUnion",
    "TransportType",
    "VectorstoreTool",
]
