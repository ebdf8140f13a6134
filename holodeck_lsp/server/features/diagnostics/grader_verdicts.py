"""Keeping trusted grader verdicts alive between saves (the "Ansible pattern").

In a trusted workspace the slow pass (on open and save) imports grader modules; the fast pass
(on every change) only resolves them statically. So that typing does not flip a grader's
verdict back and forth, the slow pass's verdicts are cached and merged into every fast result:

* a fast-pass grader-resolution diagnostic (HD131–HD134) on a line the slow pass also saw
  (same line text) is dropped — the import's verdict governs that reference;
* each slow-pass grader diagnostic is re-anchored to the nearest line with the same text
  (lines inserted above move it; an edited reference line drops it until the next save).
New or edited grader references get the static verdict until the file is saved.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace
from typing import Final

from holodeck_lsp.checker.diagnostics import Diagnostic, Position, Range
from holodeck_lsp.schema.codes import Code
from holodeck_lsp.server.documents.index import path_key
from holodeck_lsp.server.features.diagnostics.analysis import Analysis

GRADER_RESOLUTION: Final = frozenset(
    {
        Code.GRADER_MODULE_NOT_FOUND,
        Code.GRADER_ATTRIBUTE_MISSING,
        Code.GRADER_NOT_CALLABLE,
        Code.GRADER_IMPORT_FAILED,
    }
)
_EDITOR_BREAK = re.compile(r"\r\n|\r|\n")
_GRADER_KEY = "grader"


def _lines(text: str) -> list[str]:
    return _EDITOR_BREAK.split(text)


@dataclass(frozen=True, slots=True)
class GraderVerdicts:
    #: path_key -> the text of every line that mentions a grader, as the slow pass saw it.
    checked: dict[str, frozenset[str]]
    #: (path_key, diagnostic, text of its start line) for every slow-pass grader diagnostic.
    found: tuple[tuple[str, Diagnostic, str], ...]

    @classmethod
    def of(cls, slow: Analysis) -> GraderVerdicts:
        lines = {key: _lines(text) for key, text in slow.texts.items()}
        checked = {
            key: frozenset(line for line in file_lines if _GRADER_KEY in line)
            for key, file_lines in lines.items()
        }
        found = []
        for diagnostic in slow.diagnostics:
            if diagnostic.code not in GRADER_RESOLUTION:
                continue
            key = path_key(diagnostic.file)
            file_lines = lines.get(key, [])
            line = diagnostic.range.start.line
            if line < len(file_lines):
                found.append((key, diagnostic, file_lines[line]))
        return cls(checked, tuple(found))


def merge(fast: Analysis, verdicts: GraderVerdicts | None) -> list[Diagnostic]:
    """The fast pass's diagnostics with the slow pass's grader verdicts put back."""
    if verdicts is None:
        return fast.diagnostics
    lines: dict[str, list[str]] = {}

    def lines_of(key: str) -> list[str]:
        if key not in lines:
            lines[key] = _lines(fast.texts.get(key, ""))
        return lines[key]

    kept = []
    for diagnostic in fast.diagnostics:
        if diagnostic.code in GRADER_RESOLUTION:
            key = path_key(diagnostic.file)
            file_lines = lines_of(key)
            line = diagnostic.range.start.line
            text = file_lines[line] if line < len(file_lines) else None
            if text is not None and text in verdicts.checked.get(key, frozenset()):
                continue
        kept.append(diagnostic)
    seen = {(d.file, d.range, d.code, d.message) for d in kept}
    for key, diagnostic, anchor in verdicts.found:
        if key not in fast.texts:
            continue
        moved = _anchor(diagnostic, anchor, lines_of(key))
        if moved is not None and (moved.file, moved.range, moved.code, moved.message) not in seen:
            kept.append(moved)
    return kept


def _anchor(diagnostic: Diagnostic, anchor: str, lines: list[str]) -> Diagnostic | None:
    line = diagnostic.range.start.line
    if line < len(lines) and lines[line] == anchor:
        return diagnostic
    candidates = [index for index, text in enumerate(lines) if text == anchor]
    if not candidates:
        return None
    shift = min(candidates, key=lambda index: abs(index - line)) - line
    start, end = diagnostic.range.start, diagnostic.range.end
    return replace(
        diagnostic,
        range=Range(
            Position(start.line + shift, start.character), Position(end.line + shift, end.character)
        ),
    )
