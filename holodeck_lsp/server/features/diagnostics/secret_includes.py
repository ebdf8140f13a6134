"""An include whose path holds a secret is never named by its URI: its faults are told on the
agent's `test_cases_file:` line (docs/editors/README.md, "Secrets in what the server sends").

`test_cases_file: cases_${TENANT}.yaml` makes the include's path hold the variable's value;
published to that file's URI (or listed among a pull report's related documents), the value
would reach the client. Each such fault is moved to the agent file, at the value of its
`test_cases_file:` key, its message ending with where it is in the include, written with the
`${VAR}` as the agent file writes it: `… (in cases_${TENANT}.yaml, line 2)`.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path

from holodeck_lsp.checker.diagnostics import Diagnostic, Range
from holodeck_lsp.checker.env_masking import referenced_values
from holodeck_lsp.checker.suite_locator import value_of
from holodeck_lsp.checker.yaml_compose import node_range
from holodeck_lsp.checker.yaml_document import YamlDocument
from holodeck_lsp.server.documents.index import path_key

INCLUDE_KEY = "test_cases_file"


def secret_files(
    agent_path: Path,
    texts: Mapping[str, str],
    files: set[str],
    env: Mapping[str, str] | None = None,
) -> set[str]:
    """The `files` (path keys) other than the agent whose path holds the value of a `${VAR}`
    of `texts`."""
    forms = referenced_values(texts.values(), os.environ if env is None else env)
    if not forms:
        return set()
    agent = path_key(agent_path)
    return {file for file in files if file != agent and any(form in file for form in forms)}


def moved_to_agent(
    diagnostics: list[Diagnostic],
    secret: set[str],
    agent_path: Path,
    document: YamlDocument | None,
) -> list[Diagnostic]:
    """`diagnostics`, those of the `secret` files told on the agent's include line."""
    if not secret:
        return diagnostics
    anchor, written = _include_value(document)
    moved: list[Diagnostic] = []
    for diagnostic in diagnostics:
        if path_key(diagnostic.file) not in secret:
            moved.append(diagnostic)
            continue
        line = diagnostic.range.start.line + 1
        moved.append(
            replace(
                diagnostic,
                file=str(agent_path),
                range=anchor,
                message=f"{diagnostic.message} (in {written}, line {line})",
            )
        )
    return moved


def _include_value(document: YamlDocument | None) -> tuple[Range, str]:
    """The range of `test_cases_file:`'s value in the agent and its text as written there
    (with the `${VAR}`, not its value)."""
    node = value_of(document.root, INCLUDE_KEY) if document is not None else None
    if document is None or node is None:
        return Range.of(0, 0, 0, 0), "the test_cases_file"
    where = node_range(node)
    lines = document.text.splitlines()
    if where.start.line == where.end.line and where.start.line < len(lines):
        written = lines[where.start.line][where.start.character : where.end.character]
    else:
        written = "the test_cases_file"
    return where, written.strip("'\"") or "the test_cases_file"
