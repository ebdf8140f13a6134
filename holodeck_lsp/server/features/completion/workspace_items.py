"""Completion candidates read from the workspace: the tools the file declares (from its text,
which may not parse), a function tool's parameters and functions, `grader:` callables, and
file paths. Python files are read statically (`checker/python_source`), never imported."""

from __future__ import annotations

from pathlib import Path

from holodeck_lsp.server.features.completion.context import Context, parse_line
from holodeck_lsp.server.features.completion.item_builder import ItemBuilder, Kind

#: Cap on directory entries listed for a path completion (a huge folder must stay fast).
MAX_PATHS = 200


def declared_tools(lines: list[str]) -> list[str]:
    """Names of the `tools:` entries, read from the text (it may not parse)."""
    return [name for name in tool_fields(lines) if name]


def tool_fields(lines: list[str]) -> dict[str, dict[str, str]]:
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


def add_arguments(
    ctx: Context, out: ItemBuilder, lines: list[str], line: int, agent_dir: Path
) -> None:
    """Inside an expected tool's `args:`: the tool function's parameters, from its `def`."""
    from holodeck_lsp.checker.python_source.signatures import function_signature
    from holodeck_lsp.server.features.completion.context import owner_siblings

    name = owner_siblings(lines, line, ctx.column).get("name", "").strip("\"'")
    tool = tool_fields(lines).get(name)
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


def tool_functions(path: Path) -> list[tuple[str, str]]:
    from holodeck_lsp.checker.graders.shape import public_callables

    return public_callables(path)


def grader_candidates(agent_dir: Path) -> list[tuple[str, str]]:
    # One predicate with the HD132 quick fix (`checker/graders/shape.py`).
    from holodeck_lsp.checker.graders.shape import grader_functions

    found: list[tuple[str, str]] = []
    try:
        files = sorted(agent_dir.glob("*.py"))
    except OSError:
        return found
    for file in files[:MAX_PATHS]:
        for name, description in grader_functions(file):
            found.append((f"{file.stem}:{name}", f"{description} in {file.name}"))
    return found


def path_candidates(agent_dir: Path, prefix: str) -> list[tuple[str, bool]]:
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
