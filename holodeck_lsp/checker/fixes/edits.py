"""What a fix is: text edits in code-point offsets, to this document or another file."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace `text[start:end]` with `new_text` (code-point offsets)."""

    start: int
    end: int
    new_text: str


@dataclass(frozen=True, slots=True)
class FileChange:
    """Edits to another file; `create` when it does not exist yet (edits then insert at 0)."""

    path: Path
    create: bool
    edits: list[Edit]
    #: The text the edits' offsets refer to ("" for a new file).
    text: str


@dataclass(frozen=True, slots=True)
class Fix:
    title: str
    #: Edits to the document the fix was asked for.
    edits: list[Edit] = field(default_factory=list)
    files: list[FileChange] = field(default_factory=list)
    preferred: bool = False


def apply_edits(text: str, edits: list[Edit]) -> str:
    """`text` with `edits` applied. They must not overlap (their offsets refer to `text`)."""
    for edit in sorted(edits, key=lambda e: (e.start, e.end), reverse=True):
        text = text[: edit.start] + edit.new_text + text[edit.end :]
    return text


def overlaps(a: Edit, b: Edit) -> bool:
    """Whether applying both would be ambiguous: they share text, or insert at one place."""
    return (a.start < b.end and b.start < a.end) or (a.start == b.start)
