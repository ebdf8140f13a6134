"""Fix all HDxxx in this file: the preferred fix of every diagnostic with one code, as one
fix — the very edits each diagnostic's own quick fix makes, so fixing all is the same as
fixing each in turn.

Only fixes that edit this document alone are combined (creating files is asked for one at a
time), identical fixes count once (HD111 is reported on each field of a case, with one fix),
and a fix whose edits would overlap one already taken is left out: its diagnostic stays, and
the next fix-all or its own quick fix takes it, on the re-checked text.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.checker.fixes.edits import Edit, Fix, overlaps
from holodeck_lsp.checker.fixes.scalar_fixes import fixes_for


@dataclass(frozen=True, slots=True)
class Reported:
    """A diagnostic, as much of it as its fixes need."""

    code: str
    #: Code-point offset of its range's start.
    offset: int
    data: Mapping[str, object]
    message: str


def fix_all(
    text: str, code: str, reported: Sequence[Reported], agent_dir: Path | None
) -> tuple[Fix, list[Reported]] | None:
    """One fix for every `code` diagnostic in `reported` that has a preferred in-document
    fix, and the diagnostics it fixes; None unless that is at least two distinct fixes (one
    is its own quick fix already)."""
    chosen: list[Edit] = []
    seen: set[tuple[Edit, ...]] = set()
    fixed: list[Reported] = []
    for item in sorted(reported, key=lambda r: r.offset):
        if item.code != code:
            continue
        fixes = fixes_for(text, code, item.offset, item.data, agent_dir, item.message)
        fix = next((f for f in fixes if f.preferred and f.edits and not f.files), None)
        if fix is None:
            continue
        key = tuple(fix.edits)
        if key in seen:
            fixed.append(item)
            continue
        if any(overlaps(edit, taken) for edit in fix.edits for taken in chosen):
            continue
        seen.add(key)
        chosen.extend(fix.edits)
        fixed.append(item)
    if len(seen) < 2:
        return None
    return Fix(f"Fix all {code} in this file", chosen), fixed
