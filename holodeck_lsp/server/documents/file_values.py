"""Values that name a file, for document links and go to definition: a `file:` (function and
prompt tools, `instructions:`), a test case's `files:` entry's `path:`, `test_cases_file:`, and
the module of a code metric's `grader:` (found as the checker finds it, without importing).

Paths are relative to the folder of the file they are written in, as the checker reads them;
only files that exist are linked (a missing one already has its diagnostic). Each collection
is walked once (an alias is the node it names: an alias bomb would otherwise be followed
exponentially often, issue 35); a value is linked where its text is, at its anchor, once.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from ruamel.yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from holodeck_lsp.server.documents.node_at import MAX_DEPTH, PathElement
from holodeck_lsp.server.documents.suite_names import text_span

FILE_KEYS = ("file", "test_cases_file")


@dataclass(frozen=True, slots=True)
class FileValue:
    line: int
    start: int
    end: int
    target: Path


def names_file(path: tuple[PathElement, ...]) -> bool:
    """Whether the value at `path` (ending with its key) is a file path."""
    if not path or not isinstance(path[-1], str):
        return False
    key = path[-1]
    if key in FILE_KEYS:
        return True
    return key == "path" and len(path) >= 3 and path[-3] == "files"


def resolve(path: tuple[PathElement, ...], text: str, folder: Path) -> tuple[Path, int] | None:
    """The file the value names and how many of its characters name it (a grader's module
    part only); None when it names no file that exists."""
    from holodeck_lsp.server.documents.references import grader_target

    if path and path[-1] == "grader":
        found = grader_target(text, folder)
        if found is None or found.path is None or not found.path.is_file():
            return None
        return found.path, len(text.split(":", 1)[0])
    if not names_file(path) or not text.strip():
        return None
    target = folder / text.strip()
    return (target, len(text)) if target.is_file() else None


def _walk(
    node: Node, path: tuple[PathElement, ...], depth: int, seen: set[int]
) -> Iterator[tuple[tuple[PathElement, ...], Node]]:
    if depth > MAX_DEPTH:
        return
    if not isinstance(node, ScalarNode):  # a collection: walked once (see above)
        if id(node) in seen:
            return
        seen.add(id(node))
    if isinstance(node, MappingNode):
        for key, value in node.value:
            if isinstance(key, ScalarNode):
                yield from _walk(value, (*path, str(key.value)), depth + 1, seen)
    elif isinstance(node, SequenceNode):
        for index, item in enumerate(node.value):
            yield from _walk(item, (*path, index), depth + 1, seen)
    else:
        yield path, node


def file_values(root: Node | None, folder: Path) -> list[FileValue]:
    """Every value in the tree naming a file that exists."""
    found: list[FileValue] = []
    linked: set[FileValue] = set()
    if root is None:
        return found
    for path, node in _walk(root, (), 0, set()):
        if not path or path[-1] not in ("file", "test_cases_file", "path", "grader"):
            continue
        span = text_span(node)
        if span is None:
            continue
        resolved = resolve(path, str(node.value), folder)
        if resolved is not None:
            line, start, end = span
            value = FileValue(line, start, min(end, start + resolved[1]), resolved[0])
            if value not in linked:  # an aliased scalar is met once per alias
                linked.add(value)
                found.append(value)
    return found
