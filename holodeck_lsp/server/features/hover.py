"""Hover: what the thing under the cursor means, as Markdown.

* a key: the field's description, type and default, from the schema models;
* an imported case's name: the benchmark record it came from (checker/import_source.py);
* an argument matcher (`fuzzy:` / `regex:`) or a literal argument value: the exact matching
  rules, with examples (they are easy to guess wrong: fuzzy is not edit distance);
* an expected tool's name: the declared tool, and for a function tool its Python signature
  and docstring; a `grader:`: the grader function's signature and docstring (found by reading
  files, never importing); a `metric:`: when it passes (from the metric catalogue).

Reads the latest parsed YAML only (works while validation reports errors); a text that does
not parse gets no hover.
"""

from __future__ import annotations

import enum
import inspect
import types as pytypes
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Annotated, Any, Literal, Union, get_args, get_origin

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.matcher_docs import FUZZY_DOC, LITERAL_DOC, REGEX_DOC
from holodeck_lsp.server.documents.parsed import parsed_documents
from holodeck_lsp.server.guard import answer_or

if TYPE_CHECKING:
    from pydantic import BaseModel
    from pydantic.fields import FieldInfo

    from holodeck_lsp.server.documents.node_at import NodeAt
    from holodeck_lsp.server.documents.parsed import Parsed
    from holodeck_lsp.server.documents.references import Reference

ARG_DOC = """\
**argument `{name}`** of the expected call — it must be present and match; arguments that are
not listed are ignored. The value is a literal (exact), `{{fuzzy: "..."}}` or
`{{regex: "..."}}`.
"""


def hover_markdown(parsed: Parsed, at: NodeAt) -> str | None:
    """The hover text for the node under the cursor, or None."""
    from holodeck_lsp.server.documents.references import reference_at

    path = at.path
    if len(path) >= 3 and path[-3] == "args" and path[-1] in ("fuzzy", "regex"):
        return FUZZY_DOC if path[-1] == "fuzzy" else REGEX_DOC
    if len(path) >= 2 and path[-2] == "args":
        if at.on_key:
            return ARG_DOC.format(name=path[-1])
        return LITERAL_DOC
    if not at.on_key:
        reference = reference_at(at)
        if reference is not None:
            text = _reference_markdown(parsed, reference)
            if text is not None:
                return text
    field = _field_markdown(parsed, path)
    source = _source_markdown(parsed, path)
    if source is not None:
        return source if field is None else f"{source}\n\n---\n\n{field}"
    return field


def _source_markdown(parsed: Parsed, path: Sequence[str | int]) -> str | None:
    """On an imported case's name: the benchmark record it was made from, read from the
    `# <dataset>: <id> (<detail>)` comment the importer wrote above the case."""
    from holodeck_lsp.checker.import_source import case_source

    if len(path) != 3 or path[0] != "test_cases" or path[2] != "name":
        return None
    index = path[1]
    if not isinstance(index, int):
        return None
    source = case_source(parsed.document.text, parsed.document.root, index)
    if source is None:
        return None
    return f"**imported from `{source.dataset}`**: record `{source.record_id}` ({source.detail})"


# -- references ----------------------------------------------------------------------------


def _reference_markdown(parsed: Parsed, reference: Reference) -> str | None:
    from holodeck_lsp.checker.data_walk import data_at
    from holodeck_lsp.server.documents.references import Target, declared_tool

    data = parsed.document.value
    if reference.target is Target.METRIC:
        return _metric_markdown(reference.text, data_at(data, reference.owner))
    if reference.target is Target.GRADER:
        return _grader_markdown(parsed, reference.text)
    if reference.target is Target.EXPECTED_TOOL:
        tool = declared_tool(data, reference.text)
        if tool is None:
            return (
                f"**expected tool `{reference.text}`** — no tool of that name is declared "
                "under `tools:`. Calls match when their name *contains* this text "
                "(case-sensitive), so it may still match a tool an MCP server provides."
            )
        return _tool_markdown(parsed, tool, expected=True)
    tool_data = data_at(data, reference.owner)
    if isinstance(tool_data, Mapping):
        return _tool_markdown(parsed, tool_data, expected=False)
    return None


def _tool_markdown(parsed: Parsed, tool: Mapping[str, Any], *, expected: bool) -> str:
    from holodeck_lsp.server.documents.references import render_signature, tool_function

    name, kind = tool.get("name"), tool.get("type")
    lines = [f"**tool `{name}`**" + (f" ({kind})" if isinstance(kind, str) else "")]
    description = tool.get("description")
    if isinstance(description, str):
        lines += ["", description]
    if expected:
        lines += [
            "",
            "Matches calls whose name *contains* this name (case-sensitive); "
            "`count` (default 1) calls must match.",
        ]
    if parsed.agent_dir is not None:
        signature = tool_function(tool, parsed.agent_dir)
        if signature is not None:
            lines += ["", "```python", render_signature(signature), "```"]
            if signature.docstring:
                lines += ["", signature.docstring]
            lines += ["", f"Defined in `{tool.get('file')}`, line {signature.line + 1}."]
        elif kind == "function":
            lines += ["", f"Function `{tool.get('function')}` not found in `{tool.get('file')}`."]
    return "\n".join(lines)


def _grader_markdown(parsed: Parsed, spec: str) -> str | None:
    from holodeck_lsp.server.documents.references import grader_target, render_signature

    if parsed.agent_dir is None:
        return None
    target = grader_target(spec, parsed.agent_dir)
    if target is None:
        return f"**grader `{spec}`** — not a `module.path:callable` reference."
    lines = [f"**grader `{target.attribute}`** from module `{target.module}`"]
    if target.path is None:
        lines += ["", "The module was not found next to the agent or on this server's path."]
    elif target.signature is not None:
        lines += ["", "```python", render_signature(target.signature), "```"]
        if target.signature.docstring:
            lines += ["", target.signature.docstring]
        lines += ["", f"Defined in `{target.path}`, line {target.signature.line + 1}."]
    elif target.binding is not None:
        lines += ["", f"A {target.binding.description} in `{target.path}`."]
    else:
        lines += ["", f"`{target.attribute}` is not defined at the top level of `{target.path}`."]
    return "\n".join(lines)


def _metric_markdown(metric: str, owner: Any) -> str | None:
    from holodeck_lsp.schema.metric_catalogue import STANDARD_METRICS, STANDARD_OPTIONS

    spec = STANDARD_METRICS.get(metric)
    if spec is None:
        return None
    lines = [f"**metric `{metric}`** — {spec.rule_text()}"]
    if isinstance(owner, Mapping):
        flags = (*STANDARD_OPTIONS, "threshold")
        set_here = [f"`{flag}: {_yaml_text(owner[flag])}`" for flag in flags if flag in owner]
        if set_here:
            lines += ["", "Set here: " + ", ".join(set_here) + "."]
    return "\n".join(lines)


# -- schema fields -------------------------------------------------------------------------


def _field_markdown(parsed: Parsed, path: Sequence[str | int]) -> str | None:
    info = _field(parsed.document.value, path)
    if info is None:
        return None
    lines = [f"**`{path[-1]}`**: `{describe_annotation(info.annotation)}`"]
    if info.description:
        lines += ["", info.description]
    default = _default_text(info)
    if default is not None:
        lines += ["", f"Default: `{default}`"]
    return "\n".join(lines)


def _field(data: Any, path: Sequence[str | int]) -> FieldInfo | None:
    from holodeck_lsp.checker.data_walk import data_at
    from holodeck_lsp.schema.agent import Agent
    from holodeck_lsp.schema.introspect import models_at

    if not path or not isinstance(path[-1], str):
        return None
    models: list[type[BaseModel]] = [
        model for model in models_at(Agent, path[:-1]) if path[-1] in model.model_fields
    ]
    if not models:
        return None
    # A union (tools, metrics): prefer the model whose `type` the mapping names.
    owner = data_at(data, path[:-1])
    kind = owner.get("type") if isinstance(owner, Mapping) else None
    for model in models:
        type_field = model.model_fields.get("type")
        if type_field is not None and type_field.default == kind:
            return model.model_fields[path[-1]]
    return models[0].model_fields[path[-1]]


def _default_text(info: FieldInfo) -> str | None:
    from pydantic_core import PydanticUndefined

    if info.is_required():
        return None
    if info.default_factory is not None:
        try:
            value = info.default_factory()  # type: ignore[call-arg]
        except Exception:
            return None
    else:
        value = info.default
    if value is PydanticUndefined or value is None:
        return None
    return _yaml_text(value)


def _yaml_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, enum.Enum):
        return str(value.value)
    if isinstance(value, list):
        return "[" + ", ".join(_yaml_text(item) for item in value) + "]"
    return str(value)


def describe_annotation(annotation: Any) -> str:
    """A readable type: `number`, `text`, `list of mapping (ExpectedTool) | text`, ..."""
    origin = get_origin(annotation)
    if origin is Annotated:
        return describe_annotation(get_args(annotation)[0])
    if origin is Union or origin is pytypes.UnionType:
        members = [arg for arg in get_args(annotation) if arg is not type(None)]
        return " | ".join(dict.fromkeys(describe_annotation(arg) for arg in members))
    if origin is Literal:
        return " | ".join(
            f'"{arg}"' if isinstance(arg, str) else str(arg) for arg in get_args(annotation)
        )
    if origin is list:
        args = get_args(annotation)
        inner = describe_annotation(args[0]) if args else "values"
        return "list of " + (f"({inner})" if " | " in inner else inner)
    if origin is dict:
        args = get_args(annotation)
        inner = describe_annotation(args[1]) if len(args) == 2 else "value"
        return f"mapping of text to {inner}"
    if isinstance(annotation, type):
        if issubclass(annotation, enum.Enum):
            return " | ".join(f'"{member.value}"' for member in annotation)
        names = {bool: "boolean", int: "integer", float: "number", str: "text"}
        if annotation in names:
            return names[annotation]
        if hasattr(annotation, "model_fields"):
            return f"mapping ({annotation.__name__})"
        return annotation.__name__
    if annotation is Any:
        return "any"
    return str(annotation).replace("typing.", "")


# -- the request ---------------------------------------------------------------------------


#: `(parsed, uri, line, character) -> Markdown or None` (or an awaitable of it, for a source
#: that reads from disk off the loop): run results at a YAML position.
ResultHover = Callable[["Parsed", str, int, int], "str | Awaitable[str | None] | None"]


async def hover(
    server: HolodeckServer, params: types.HoverParams, results: Sequence[ResultHover] = ()
) -> types.Hover | None:
    from holodeck_lsp.server.documents.node_at import node_at

    parsed = await parsed_documents(server).get(params.text_document.uri)
    if parsed is None:
        return None
    converter = parsed.converter
    line, character = converter.from_client(params.position.line, params.position.character)
    at = node_at(parsed.document.root, line, character)
    if at is None:
        return None
    text = hover_markdown(parsed, at)
    graded = []
    for source in results:
        found = source(parsed, params.text_document.uri, line, character)
        if inspect.isawaitable(found):
            found = await found
        if found is not None:
            graded.append(found)
    if graded:  # what the last run said about this metric first, then what it means
        text = "\n\n---\n\n".join([*graded, *([text] if text else [])])
    if text is None:
        return None
    start, end = at.node.start_mark, at.node.end_mark
    start_line, start_char = converter.to_client(start.line, start.column)
    end_line, end_char = converter.to_client(end.line, end.column)
    return types.Hover(
        contents=types.MarkupContent(kind=types.MarkupKind.Markdown, value=text),
        range=types.Range(
            start=types.Position(line=start_line, character=start_char),
            end=types.Position(line=end_line, character=end_char),
        ),
    )


def register(server: HolodeckServer, results: Sequence[ResultHover] = ()) -> None:
    """`results`: where run results come from (the run feature's inline results; read at
    each hover, so it may be filled after registering): a hover on a graded turn's metric
    shows its score and the judge's reason."""
    parsed_documents(server)  # parse each version in the background as it arrives

    @server.feature(types.TEXT_DOCUMENT_HOVER)
    @answer_or(None, "hover")
    async def on_hover(params: types.HoverParams) -> types.Hover | None:
        return await hover(server, params, results)
