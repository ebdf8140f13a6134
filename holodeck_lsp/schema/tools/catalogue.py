"""The tool-type catalogue: one entry per value of a tool's `type:` key, with its doc and the
keys it requires. The tool models take their `type` descriptions from here, the union
(`tools.union`) its list of types, and the language server's completion its choices and
their documentation. `tests/schema/test_tool_catalogue.py` checks that each entry's
`required` keys are what its model requires.

Pure data: no pydantic in this module.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from types import MappingProxyType

#: Keys every tool type requires (`ToolBase`).
COMMON_REQUIRED: tuple[str, ...] = ("name", "description")


@dataclass(frozen=True, slots=True)
class ToolTypeSpec:
    """One tool type: `doc` describes its `type:` value; `required` are the keys it always
    needs besides `COMMON_REQUIRED`; `conditions` says which keys it needs in some shapes."""

    name: str
    doc: str
    required: tuple[str, ...] = ()
    conditions: str | None = None

    def requirements(self) -> str:
        """The keys it needs, as a sentence for completion documentation."""
        keys = ", ".join(f"`{key}`" for key in (*COMMON_REQUIRED, *self.required))
        text = f"Requires {keys}."
        return f"{text} {self.conditions}" if self.conditions else text


_CATALOGUE = (
    ToolTypeSpec(
        "function",
        "`function`: call a Python function from a local file.",
        required=("file", "function"),
    ),
    ToolTypeSpec(
        "mcp",
        "`mcp`: connect to a Model Context Protocol server.",
        conditions="Also `command` for the stdio transport (the default), `url` for sse, "
        "websocket and http.",
    ),
    ToolTypeSpec(
        "vectorstore",
        "`vectorstore`: semantic search over a data source.",
        required=("source",),
        conditions="Also `id_field` when `vector_field` is set.",
    ),
    ToolTypeSpec(
        "prompt",
        "`prompt`: a tool implemented by an LLM prompt template.",
        required=("parameters",),
        conditions="Also exactly one of `template` and `file`.",
    ),
    ToolTypeSpec(
        "hierarchical_document",
        "`hierarchical_document`: structure-aware hybrid search over documents.",
        required=("source",),
        conditions="Also `reranker_model` when `enable_reranking` is true.",
    ),
)

#: Each tool type by its `type:` value, in the order the docs list them.
TOOL_CATALOGUE: Mapping[str, ToolTypeSpec] = MappingProxyType({t.name: t for t in _CATALOGUE})
#: The accepted values of a tool's `type:` key, in the order the docs list them.
TOOL_TYPES: tuple[str, ...] = tuple(TOOL_CATALOGUE)


def tool_type_doc(tool_type: str) -> str:
    """The description of a tool model's `type` field."""
    return TOOL_CATALOGUE[tool_type].doc
