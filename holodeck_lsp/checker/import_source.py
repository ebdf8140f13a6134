"""Where an imported test case came from: the comment line an importer writes directly above
each case, `# <dataset>: <record id> (<detail>)` — `# convfinqa: Single_MRO/2007/page_134.pdf-1
(dev)`, `# bfcl: multi_turn_base_0 (base)`. A comment rather than a field, so upstream
HoloDeck (which rejects unknown fields) loads the suite as it is; the editor's hover on the
case's name reads it back. Written and read here only, so every importer agrees on it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ruamel.yaml.nodes import Node

# The dataset is a lower-case word and the id has no spaces, so an ordinary comment
# ("# Note: see below (2024)") is rarely taken for one.
_COMMENT = re.compile(
    r"^\s*#\s*(?P<dataset>[a-z][a-z0-9_-]*):\s+(?P<id>\S+)\s+\((?P<detail>[^()]+)\)\s*$"
)


@dataclass(frozen=True, slots=True)
class ImportSource:
    dataset: str
    record_id: str
    #: The split (ConvFinQA), the category (BFCL), …: what the dataset groups records by.
    detail: str


def source_comment(dataset: str, record_id: str, detail: str) -> str:
    """The comment line for a case imported from `record_id` (without indentation)."""
    if not _COMMENT.match(f"# {dataset}: {record_id} ({detail})"):
        raise ValueError(f"cannot write {dataset!r} / {record_id!r} / {detail!r} as a source")
    return f"# {dataset}: {record_id} ({detail})"


def parse_source_comment(line: str) -> ImportSource | None:
    """The source a comment line names, or None when it is not such a comment."""
    match = _COMMENT.match(line)
    if match is None:
        return None
    return ImportSource(match["dataset"], match["id"], match["detail"].strip())


def source_above(text: str, line: int) -> ImportSource | None:
    """The source named by the comment directly above `line` (0-based) of `text` — the line
    where a case's `- ` item starts."""
    if line < 1:
        return None
    lines = text.splitlines()
    if line > len(lines):
        return None
    return parse_source_comment(lines[line - 1])


def case_source(text: str, root: Node | None, index: int) -> ImportSource | None:
    """The source of `test_cases[index]` of a parsed agent file, from the comment directly
    above the line its `- ` item starts on."""
    from holodeck_lsp.checker.yaml_locate import locate

    if root is None:
        return None
    located = locate(root, ("test_cases", index))
    if located.rest:
        return None
    return source_above(text, located.node.start_mark.line)
