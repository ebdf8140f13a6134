"""`holodeck-lsp check --fix` / `--diff`: the quick fixes safe to apply without asking.

Safe means the fix cannot change what the author meant: quoting a value HoloDeck rejects as a
number (HD102), and taking the one did-you-mean suggestion of a misspelt key, choice or
matcher kind (HD100, HD103, HD125) — each a file HoloDeck rejects or a case that could never
pass, and each fix the language server's preferred quick fix for that diagnostic (the same
code: `scalar_fixes.fixes_for`). Fixes that guess (a regex to match literally, a tool name),
create files (grader stubs) or move fields between turns are left to the editor.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from holodeck_lsp.checker.diagnostics import Diagnostic
from holodeck_lsp.checker.fixes.edits import Edit, apply_edits, overlaps
from holodeck_lsp.checker.fixes.scalar_fixes import fixes_for
from holodeck_lsp.checker.text_positions import EditorLines

SAFE_CODES = frozenset({"HD100", "HD102", "HD103", "HD125"})


@dataclass(frozen=True, slots=True)
class Applied:
    """One fix applied to a document."""

    diagnostic: Diagnostic
    title: str
    #: The text replaced and what replaced it (for the "what changed" lines).
    before: str
    after: str


@dataclass(frozen=True, slots=True)
class FixedText:
    text: str
    applied: tuple[Applied, ...]


def fix_text(text: str, diagnostics: list[Diagnostic], agent_dir: Path | None) -> FixedText:
    """`text` with the safe fixes of its `diagnostics` applied (those that lie in it). Two
    fixes touching the same text: only the first is applied (a second `--fix` run takes the
    rest, re-checked)."""
    lines = EditorLines(text)
    chosen: list[Edit] = []
    applied: list[Applied] = []
    for diagnostic in sorted(diagnostics, key=lambda d: d.range):
        code = diagnostic.code.value
        if code not in SAFE_CODES:
            continue
        offset = lines.index(diagnostic.range.start)
        fixes = fixes_for(text, code, offset, diagnostic.data, agent_dir, diagnostic.message)
        fix = next((fix for fix in fixes if fix.preferred and fix.edits and not fix.files), None)
        if fix is None or any(overlaps(edit, taken) for edit in fix.edits for taken in chosen):
            continue
        chosen.extend(fix.edits)
        for edit in fix.edits:
            applied.append(
                Applied(diagnostic, fix.title, text[edit.start : edit.end], edit.new_text)
            )
    return FixedText(apply_edits(text, chosen), tuple(applied))
