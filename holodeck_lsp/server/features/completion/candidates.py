"""textDocument/completion: keys valid at the cursor (from the schema), values with a fixed set
of choices, argument matchers, declared tool names, a function tool's functions, `grader:`
candidates, file paths, and snippets for a new turn / case / expected tool.

Works from the text itself (`context.py`), so it answers while the YAML is half typed.
Python files are read statically (`python_source`), never imported.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Literal, get_args, get_origin

from lsprotocol import types

from holodeck_lsp.schema.annotations import members
from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import uri_to_path
from holodeck_lsp.server.documents.matcher_docs import MATCHER_DOCS
from holodeck_lsp.server.features.completion.context import Context, Mode, context_at, parse_line
from holodeck_lsp.server.guard import answer_or

Kind = types.CompletionItemKind
#: Cap on directory entries listed for a path completion (a huge folder must stay fast).
MAX_PATHS = 200

TURN_SNIPPET = '- input: "$1"\n{i}  ground_truth: "$2"'
CASE_SNIPPET = (
    '- name: "$1"\n{i}  turns:\n{i}    - input: "$2"\n{i}      ground_truth: "$3"\n'
    '{i}    - input: "$4"\n{i}      ground_truth: "$5"'
)
EXPECTED_TOOL_SNIPPET = '- name: ${{1:{tool}}}\n{i}  args:\n{i}    ${{2:arg}}: {{fuzzy: "$3"}}'
#: (label, snippet, documentation): the documentation is hover's (`matcher_docs`).
MATCHERS = tuple(
    (kind, f'{{{kind}: "$1"}}', types.MarkupContent(types.MarkupKind.Markdown, doc))
    for kind, doc in MATCHER_DOCS
)


def _choices(annotation: Any) -> list[str]:
    """The fixed values an annotation allows (Literal, Enum, bool)."""
    found: list[str] = []
    for member in members(annotation):
        if get_origin(member) is Literal:
            found.extend(str(arg) for arg in get_args(member))
        elif isinstance(member, type) and issubclass(member, enum.Enum):
            found.extend(str(item.value) for item in member)
        elif member is bool:
            found.extend(("true", "false"))
    return list(dict.fromkeys(found))


def _models(ctx: Context) -> list[Any]:
    """The models the mapping at the cursor could be; for unions, the one its `type:` names."""
    from holodeck_lsp.schema.agent import Agent
    from holodeck_lsp.schema.introspect import models_at

    models = models_at(Agent, ctx.path)
    declared = ctx.siblings.get("type", "").strip("\"'")
    if declared and len(models) > 1:
        chosen = [
            model
            for model in models
            if "type" in model.model_fields
            and declared in _choices(model.model_fields["type"].annotation)
        ]
        return chosen or models
    return models


def _is_list(annotation: Any) -> bool:
    return any(get_origin(member) is list for member in members(annotation))


def _is_mapping(annotation: Any) -> bool:
    from pydantic import BaseModel

    return any(
        get_origin(member) is dict or (isinstance(member, type) and issubclass(member, BaseModel))
        for member in members(annotation)
    )


def _edit_range(server: HolodeckServer, text: str, line: int, start: int, end: int) -> types.Range:
    converter = server.converter(text)
    a = converter.to_client(line, start)
    b = converter.to_client(line, end)
    return types.Range(types.Position(*a), types.Position(*b))


class _Builder:
    def __init__(self, replace: types.Range, indent: str) -> None:
        self.items: list[types.CompletionItem] = []
        self.replace = replace
        self.indent = indent

    def add(
        self,
        label: str,
        new_text: str,
        kind: types.CompletionItemKind,
        *,
        snippet: bool = False,
        documentation: str | types.MarkupContent | None = None,
        detail: str | None = None,
    ) -> None:
        self.items.append(
            types.CompletionItem(
                label=label,
                kind=kind,
                detail=detail,
                documentation=documentation,
                text_edit=types.TextEdit(self.replace, new_text),
                insert_text_format=types.InsertTextFormat.Snippet
                if snippet
                else types.InsertTextFormat.PlainText,
                # Snippet lines carry their own (absolute) indentation.
                insert_text_mode=types.InsertTextMode.AsIs,
                sort_text=f"{len(self.items):04d}",
            )
        )


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("$", "\\$").replace("}", "\\}")


def _keys(ctx: Context, out: _Builder, indent: str, present: set[str]) -> None:
    for model in _models(ctx):
        for name, info in model.model_fields.items():
            if name in present:
                continue
            present.add(name)
            if _is_list(info.annotation):
                body = f"{name}:\n{indent}  - $0"
            elif _is_mapping(info.annotation) and not _choices(info.annotation):
                body = f"{name}:\n{indent}  $0"
            else:
                body = f"{name}: $0"
            out.add(name, body, Kind.Property, snippet=True, documentation=info.description or None)


def _declared_tools(lines: list[str]) -> list[str]:
    """Names of the `tools:` entries, read from the text (it may not parse)."""
    return [name for name in _tool_fields(lines) if name]


def _tool_fields(lines: list[str]) -> dict[str, dict[str, str]]:
    """Each `tools:` entry's scalar keys (name, type, file, function), read from the text."""
    tools: dict[str, dict[str, str]] = {}
    inside = False
    item_column: int | None = None
    current: dict[str, str] = {}
    for text in lines:
        line = parse_line(text)
        if line.blank:
            continue
        if line.indent == 0 and not line.dashes:
            inside = line.key == "tools"
            continue
        if not inside:
            continue
        if line.dashes and (item_column is None or line.content == item_column):
            item_column = line.content
            current = {}
        if line.key is not None and line.content == item_column:
            current[line.key] = line.value.strip("\"'")
            if line.key == "name":
                tools[current["name"]] = current
    return tools


def _arguments(ctx: Context, out: _Builder, lines: list[str], line: int, agent_dir: Path) -> None:
    """Inside an expected tool's `args:`: the tool function's parameters, from its `def`."""
    from holodeck_lsp.config.python_source.signatures import function_signature
    from holodeck_lsp.server.features.completion.context import owner_siblings

    name = owner_siblings(lines, line, ctx.column).get("name", "").strip("\"'")
    tool = _tool_fields(lines).get(name)
    if not tool or tool.get("type") != "function" or not tool.get("file"):
        return
    signature = function_signature(agent_dir / tool["file"], tool.get("function", ""))
    if signature is None:
        return
    keywordable = set(signature.keyword_names)
    for parameter in signature.parameters:
        if parameter.name not in keywordable or parameter.name in ctx.siblings:
            continue
        detail = parameter.annotation or "any"
        if parameter.default is not None:
            detail += f" = {parameter.default}"
        out.add(parameter.name, f"{parameter.name}: $0", Kind.Field, snippet=True, detail=detail)


def _functions(path: Path) -> list[tuple[str, str]]:
    from holodeck_lsp.config.graders.shape import public_callables

    return public_callables(path)


def _graders(agent_dir: Path) -> list[tuple[str, str]]:
    # One predicate with the HD132 quick fix (`config/graders/shape.py`).
    from holodeck_lsp.config.graders.shape import grader_functions

    found: list[tuple[str, str]] = []
    try:
        files = sorted(agent_dir.glob("*.py"))
    except OSError:
        return found
    for file in files[:MAX_PATHS]:
        for name, description in grader_functions(file):
            found.append((f"{file.stem}:{name}", f"{description} in {file.name}"))
    return found


def _paths(agent_dir: Path, prefix: str) -> list[tuple[str, bool]]:
    folder, _, _ = prefix.strip("\"'").rpartition("/")
    directory = agent_dir / folder if folder else agent_dir
    found: list[tuple[str, bool]] = []
    try:
        for count, entry in enumerate(sorted(directory.iterdir())):
            if count >= MAX_PATHS:
                break
            if entry.name.startswith("."):
                continue
            relative = f"{folder}/{entry.name}" if folder else entry.name
            found.append((relative, entry.is_dir()))
    except OSError:
        pass
    return found


def _values(ctx: Context, out: _Builder, lines: list[str], agent_dir: Path | None) -> None:
    from holodeck_lsp.schema.metric_catalogue import METRIC_TYPES
    from holodeck_lsp.schema.test_case import FILE_TYPES
    from holodeck_lsp.schema.tools.catalogue import TOOL_TYPES

    key, path = ctx.key or "", ctx.path
    if path and path[-1] == "args":
        for label, body, doc in MATCHERS:
            out.add(label, body, Kind.Snippet, snippet=True, documentation=doc)
        return
    if len(path) >= 2 and path[-2] == "expected_tools" and key == "name":
        for name in _declared_tools(lines):
            out.add(name, name, Kind.Reference, detail="declared tool")
        return
    if key in ("file", "path", "test_cases_file") and agent_dir is not None:
        for relative, is_dir in _paths(agent_dir, ctx.prefix):
            out.add(
                relative, relative + ("/" if is_dir else ""), Kind.Folder if is_dir else Kind.File
            )
        return
    if key == "function" and len(path) == 2 and path[0] == "tools" and agent_dir is not None:
        file = ctx.siblings.get("file", "").strip("\"'")
        if file:
            for name, description in _functions(agent_dir / file):
                out.add(name, name, Kind.Function, detail=description)
        return
    if key == "grader" and agent_dir is not None:
        for label, description in _graders(agent_dir):
            out.add(label, label, Kind.Function, detail=description)
        return
    if key == "type":
        if len(path) == 2 and path[0] == "tools":
            choices: list[str] = list(TOOL_TYPES)
        elif "metrics" in path[-2:] or "evaluations" in path[-2:]:
            choices = list(METRIC_TYPES)
        elif len(path) >= 2 and path[-2] == "files":
            choices = list(FILE_TYPES)
        else:
            choices = _field_choices(ctx, key)
    else:
        choices = _field_choices(ctx, key)
    docs = _catalogue_docs(ctx, key)
    for choice in choices:
        out.add(choice, choice, Kind.EnumMember, documentation=docs.get(choice))


def _catalogue_docs(ctx: Context, key: str) -> Mapping[str, str]:
    """What the metric and tool-type catalogues say about each value of `key` here."""
    from holodeck_lsp.schema.metric_catalogue import KIND_DOCS, RAG_METRICS, STANDARD_METRICS
    from holodeck_lsp.schema.tools.catalogue import TOOL_CATALOGUE

    path = ctx.path
    if key == "type" and len(path) == 2 and path[0] == "tools":
        return {
            name: f"{spec.doc}\n\n{spec.requirements()}" for name, spec in TOOL_CATALOGUE.items()
        }
    if key == "type" and ("metrics" in path[-2:] or "evaluations" in path[-2:]):
        return KIND_DOCS
    if key == "metric":
        return {name: spec.doc for name, spec in STANDARD_METRICS.items()}
    if key == "metric_type":
        return {name: spec.doc for name, spec in RAG_METRICS.items()}
    return {}


def _field_choices(ctx: Context, key: str) -> list[str]:
    found: list[str] = []
    for model in _models(ctx):
        info = model.model_fields.get(key)
        if info is not None:
            found.extend(_choices(info.annotation))
    return list(dict.fromkeys(found))


def _items(
    ctx: Context, out: _Builder, lines: list[str], indent: str, *, dash: bool = False
) -> None:
    """A new `- ` item of the sequence `ctx.path[:-1]` (of `ctx.path` when `dash`: the `- `
    is not typed yet): scalar items, snippets, and the item's keys."""
    owner = ctx.path[-1 if dash else -2] if len(ctx.path) >= (1 if dash else 2) else None
    cut = 0 if dash else 2
    if owner == "expected_tools":
        for name in _declared_tools(lines):
            out.add(name, ("- " if dash else "") + name, Kind.Reference, detail="declared tool")
        tool = (_declared_tools(lines) or ["tool"])[0]
        out.add(
            "expected tool with args",
            EXPECTED_TOOL_SNIPPET.format(i=indent, tool=_escape(tool))[cut:],
            Kind.Snippet,
            snippet=True,
        )
    elif owner == "turns":
        out.add("new turn", TURN_SNIPPET.format(i=indent)[cut:], Kind.Snippet, snippet=True)
    elif owner == "test_cases":
        out.add(
            "new multi-turn case", CASE_SNIPPET.format(i=indent)[cut:], Kind.Snippet, snippet=True
        )
    if not dash:
        # The item is a mapping: its keys (it starts on this line, so none is present yet).
        _keys(ctx, out, " " * ctx.column, set())


def completions(
    server: HolodeckServer, uri: str, line: int, character: int
) -> list[types.CompletionItem]:
    document = server.workspace.text_documents.get(uri)
    if document is None:
        return []
    text = document.source
    converter = server.converter(text)
    line, character = converter.from_client(line, character)
    lines = converter.lines
    ctx = context_at(lines, line, character)
    if ctx is None:
        return []
    path = uri_to_path(uri)
    agent_dir = None if path is None else path.parent
    indent = " " * ctx.column
    replace = _edit_range(server, text, line, ctx.start, character)
    out = _Builder(replace, indent)
    if ctx.mode is Mode.VALUE:
        _values(ctx, out, lines, agent_dir)
    elif ctx.mode is Mode.ITEM:
        # `- ` is already typed: the item's lines continue two columns further in.
        _items(ctx, out, lines, " " * (ctx.column - 2))
    else:
        if ctx.path and ctx.path[-1] == "args" and agent_dir is not None:
            _arguments(ctx, out, lines, line, agent_dir)
            return out.items
        if len(ctx.path) >= 2 and ctx.path[-2] == "args":
            # Inside one argument's mapping: the matcher keys.
            for label, _body, doc in MATCHERS:
                if label not in ctx.siblings:
                    body = f'{label}: "$0"'
                    out.add(label, body, Kind.Property, snippet=True, documentation=doc)
            return out.items
        if ctx.path and ctx.path[-1] in ("turns", "test_cases", "expected_tools"):
            # A blank line inside a list: whole `- ` items.
            _items(ctx, out, lines, indent, dash=True)
            return out.items
        _keys(ctx, out, indent, set(ctx.siblings))
    return out.items


def register(server: HolodeckServer) -> None:
    @server.feature(
        types.TEXT_DOCUMENT_COMPLETION,
        types.CompletionOptions(trigger_characters=[":", " ", "-", "/"]),
    )
    @answer_or(None, "completion")
    def on_completion(params: types.CompletionParams) -> types.CompletionList | None:
        position = params.position
        items = completions(server, params.text_document.uri, position.line, position.character)
        return types.CompletionList(is_incomplete=False, items=items)
