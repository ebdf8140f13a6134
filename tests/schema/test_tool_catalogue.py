"""The tool-type catalogue is the one statement of each tool type: the models, the union and
completion agree with it, and the split `schema.tools` package keeps its old public names."""

from __future__ import annotations

import pytest
from pydantic import TypeAdapter, ValidationError

from holodeck_lsp.schema import tools
from holodeck_lsp.schema.tools.catalogue import COMMON_REQUIRED, TOOL_CATALOGUE, TOOL_TYPES
from holodeck_lsp.schema.tools.union import TOOL_MODELS, ToolUnion


def test_catalogue_and_models_list_the_same_types_in_order() -> None:
    assert list(TOOL_MODELS) == list(TOOL_CATALOGUE) == list(TOOL_TYPES)


@pytest.mark.parametrize("name", TOOL_TYPES)
def test_each_model_requires_what_the_catalogue_says(name: str) -> None:
    spec, model = TOOL_CATALOGUE[name], TOOL_MODELS[name]
    required = [key for key, info in model.model_fields.items() if info.is_required()]
    assert set(required) == {*COMMON_REQUIRED, *spec.required}
    assert model.model_fields["type"].default == name
    assert model.model_fields["type"].description == spec.doc


def test_an_unknown_type_lists_the_catalogue() -> None:
    with pytest.raises(ValidationError) as info:
        TypeAdapter(ToolUnion).validate_python({"type": "shell", "name": "x", "description": "d"})
    assert ", ".join(TOOL_TYPES) in str(info.value)


def test_completion_offers_each_type_with_its_doc_and_required_keys() -> None:
    from lsprotocol import types

    from holodeck_lsp.server.features.completion.candidates import value_items
    from holodeck_lsp.server.features.completion.context import context_at
    from holodeck_lsp.server.features.completion.item_builder import ItemBuilder

    lines = ["name: x", "tools:", "  - name: t", "    type: "]
    ctx = context_at(lines, 3, len(lines[3]))
    assert ctx is not None
    out = ItemBuilder(types.Range(types.Position(0, 0), types.Position(0, 0)), "")
    value_items(ctx, out, lines, None)
    docs = {item.label: item.documentation for item in out.items}
    assert list(docs) == list(TOOL_TYPES)
    for name, spec in TOOL_CATALOGUE.items():
        doc = docs[name]
        assert isinstance(doc, str) and doc.startswith(spec.doc)
        for key in (*COMMON_REQUIRED, *spec.required):
            assert f"`{key}`" in doc


def test_the_package_keeps_the_old_public_names() -> None:
    old = {
        "TOOL_MODELS", "TOOL_TYPES", "ChunkingStrategy", "CommandType", "DatabaseConfig",
        "DatabaseProvider", "DatabaseRef", "DocumentDomain", "FunctionTool",
        "HierarchicalDocumentTool", "KeywordIndexConfig", "MCPTool", "PromptTool", "SearchMode",
        "Tool", "ToolUnion", "TransportType", "VectorstoreTool",
    }  # fmt: skip
    assert old <= set(tools.__all__)
    assert all(hasattr(tools, name) for name in tools.__all__)
