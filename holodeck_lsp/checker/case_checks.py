"""Which test cases the checks beyond the schema (shape checks, lints) must look at again after
an edit: the rest found nothing last time, with the same inputs, so they would find nothing now.

A case's shape findings depend on the case alone; its lint findings on the case and on the
declared tools with their functions' signatures (read from tools.py on disk). An unchanged case
keeps its raw value object across incremental parses, so "the same case" is "the same object"
(`incremental_parse`). Cases that had findings are always checked again: their ranges move
with the text. The cases left out are replaced by None in the data the checks walk, so the
others keep their indexes (the checks skip anything that is not a mapping).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

from holodeck_lsp.checker.data_walk import declared_tools
from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.checker.located import format_path
from holodeck_lsp.checker.python_source.signatures import function_signature


@dataclass(frozen=True, slots=True)
class CleanCases:
    """The cases (by identity) in which the shape checks and lints found nothing, and what
    the lints depended on besides the cases."""

    context: tuple[Any, ...]
    #: id(raw case) -> raw case (held so that its id is not re-used).
    clean: dict[int, Any]

    def to_check(self, data: dict[str, Any], context: tuple[Any, ...]) -> dict[str, Any]:
        """`data` with the cases that need no new check replaced by None."""
        cases = data.get("test_cases")
        if context != self.context or not isinstance(cases, list):
            return data
        kept = [None if self.clean.get(id(case)) is case else case for case in cases]
        return {**data, "test_cases": kept}


def lint_context(data: dict[str, Any], agent_dir: Path, lints: bool) -> tuple[Any, ...]:
    """Everything besides a case that the lints of a case depend on."""
    if not lints:
        return (False,)
    tools = declared_tools(data)
    signatures = tuple(
        function_signature(agent_dir / tool["file"], tool["function"])
        for tool in tools
        if isinstance(tool.get("file"), str) and isinstance(tool.get("function"), str)
    )
    return True, agent_dir, tools, signatures


def clean_cases(
    data: dict[str, Any], context: tuple[Any, ...], file: str, found: list[Diagnostic]
) -> CleanCases:
    """The cases of `data` (the agent's own) without any of the `found` diagnostics."""
    cases = data.get("test_cases")
    if not isinstance(cases, list):
        return CleanCases(context, {})
    flagged = {
        diagnostic.field_path.split(".", 1)[0]
        for diagnostic in found
        if diagnostic.file == file and diagnostic.field_path
    }
    clean = {
        id(case): case
        for index, case in enumerate(cases)
        if format_path(("test_cases", index)) not in flagged
    }
    return CleanCases(context, clean)
