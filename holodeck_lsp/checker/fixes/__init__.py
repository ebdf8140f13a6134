"""Quick fixes as plain text edits, computed from a document's text alone — one code for the
language server's code actions and `holodeck-lsp check --fix` / `--diff`.

Everything works in code-point offsets into the document text (what the YAML parser's marks
count); the server turns them into LSP positions and workspace edits, `check --fix` applies
them to the file. The document is parsed again here (the checker's result is not kept per
version), which costs milliseconds.

    edits.py          Edit, FileChange, Fix; apply_edits
    nodes.py          the scalar at an offset; writing a value back in the node's style
    scalar_fixes.py   fixes_for(text, code, offset, data, …): the fixes of one diagnostic
    grader_stubs.py   HD131 / HD132: change to the closest grader, or create the function
    case_rewrites.py  single-turn case -> `turns:`; HD111: fields into a first turn
    regex_escapes.py  HD120: escape only the characters that break a regex
    fix_all.py        "Fix all HDxxx in this file": every diagnostic's preferred fix at once
    safe.py           which fixes `check --fix` applies unasked, and applying them to a file
"""

from holodeck_lsp.checker.fixes.case_rewrites import legacy_into_first_turn, to_turns
from holodeck_lsp.checker.fixes.edits import Edit, FileChange, Fix, apply_edits
from holodeck_lsp.checker.fixes.fix_all import Reported, fix_all
from holodeck_lsp.checker.fixes.scalar_fixes import fixes_for

__all__ = [
    "Edit",
    "FileChange",
    "Fix",
    "Reported",
    "apply_edits",
    "fix_all",
    "fixes_for",
    "legacy_into_first_turn",
    "to_turns",
]
