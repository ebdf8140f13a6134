"""textDocument/completion: keys valid at the cursor (from the schema), values with a fixed set
of choices, argument matchers, declared tool names, a function tool's functions, `grader:`
candidates, file paths, and snippets for a new turn / case / expected tool.

Works from the text itself (`context.py`), so it answers while the YAML is half typed. This
module decides what the cursor is on and asks the rooms that know: `schema_items.py` (keys,
fixed values), `workspace_items.py` (tools, functions, graders, paths); `item_builder.py`
makes the items.
"""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types

from holodeck_lsp.server.core import HolodeckServer
from holodeck_lsp.server.documents.index import uri_to_path
from holodeck_lsp.server.documents.matcher_docs import MATCHER_DOCS
from holodeck_lsp.server.documents.size_limit import too_large
from holodeck_lsp.server.features.completion.context import Context, Mode, context_at
from holodeck_lsp.server.features.completion.item_builder import (
    ItemBuilder,
    Kind,
    edit_range,
    escape_snippet,
)
from holodeck_lsp.server.features.completion.schema_items import (
    add_keys,
    catalogue_docs,
    field_choices,
)
from holodeck_lsp.server.features.completion.workspace_items import (
    add_arguments,
    declared_tools,
    grader_candidates,
    path_candidates,
    tool_functions,
)
from holodeck_lsp.server.guard import answer_or

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


def value_items(ctx: Context, out: ItemBuilder, lines: list[str], agent_dir: Path | None) -> None:
    from holodeck_lsp.schema.metric_catalogue import METRIC_TYPES
    from holodeck_lsp.schema.test_case import FILE_TYPES
    from holodeck_lsp.schema.tools.catalogue import TOOL_TYPES

    key, path = ctx.key or "", ctx.path
    if path and path[-1] == "args":
        for label, body, doc in MATCHERS:
            out.add(label, body, Kind.Snippet, snippet=True, documentation=doc)
        return
    if len(path) >= 2 and path[-2] == "expected_tools" and key == "name":
        for name in declared_tools(lines):
            out.add(name, name, Kind.Reference, detail="declared tool")
        return
    if key in ("file", "path", "test_cases_file") and agent_dir is not None:
        for relative, is_dir in path_candidates(agent_dir, ctx.prefix):
            out.add(
                relative, relative + ("/" if is_dir else ""), Kind.Folder if is_dir else Kind.File
            )
        return
    if key == "function" and len(path) == 2 and path[0] == "tools" and agent_dir is not None:
        file = ctx.siblings.get("file", "").strip("\"'")
        if file:
            for name, description in tool_functions(agent_dir / file):
                out.add(name, name, Kind.Function, detail=description)
        return
    if key == "grader" and agent_dir is not None:
        for label, description in grader_candidates(agent_dir):
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
            choices = field_choices(ctx, key)
    else:
        choices = field_choices(ctx, key)
    docs = catalogue_docs(ctx, key)
    for choice in choices:
        out.add(choice, choice, Kind.EnumMember, documentation=docs.get(choice))


def _items(
    ctx: Context, out: ItemBuilder, lines: list[str], indent: str, *, dash: bool = False
) -> None:
    """A new `- ` item of the sequence `ctx.path[:-1]` (of `ctx.path` when `dash`: the `- `
    is not typed yet): scalar items, snippets, and the item's keys."""
    owner = ctx.path[-1 if dash else -2] if len(ctx.path) >= (1 if dash else 2) else None
    cut = 0 if dash else 2
    if owner == "expected_tools":
        for name in declared_tools(lines):
            out.add(name, ("- " if dash else "") + name, Kind.Reference, detail="declared tool")
        tool = (declared_tools(lines) or ["tool"])[0]
        out.add(
            "expected tool with args",
            EXPECTED_TOOL_SNIPPET.format(i=indent, tool=escape_snippet(tool))[cut:],
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
        add_keys(ctx, out, " " * ctx.column, set())


def completions(
    server: HolodeckServer, uri: str, line: int, character: int
) -> list[types.CompletionItem]:
    document = server.workspace.text_documents.get(uri)
    if document is None or too_large(document.source):
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
    replace = edit_range(server, text, line, ctx.start, character)
    out = ItemBuilder(replace, indent)
    if ctx.mode is Mode.VALUE:
        value_items(ctx, out, lines, agent_dir)
    elif ctx.mode is Mode.ITEM:
        # `- ` is already typed: the item's lines continue two columns further in.
        _items(ctx, out, lines, " " * (ctx.column - 2))
    else:
        if ctx.path and ctx.path[-1] == "args" and agent_dir is not None:
            add_arguments(ctx, out, lines, line, agent_dir)
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
        add_keys(ctx, out, indent, set(ctx.siblings))
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
