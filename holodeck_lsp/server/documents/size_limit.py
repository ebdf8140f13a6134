"""How large an open document the server checks and navigates (docs/editors/README.md,
"Limits"). Composing YAML costs memory per value — about 300 bytes per character on a flow line
of one-character items, so a 50 MB line took the server to 11.6 GB (issue 35). Beyond the
limit the server neither checks nor parses the document: it publishes one diagnostic saying
so, and every request about it gets its empty answer. `holodeck-lsp check FILE` still checks
the file. Real agent files are far smaller: the samples are 18 and 55 KB, a 1,000-case suite
well under a megabyte.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Final

if TYPE_CHECKING:
    from holodeck_lsp.checker.diagnostics import Diagnostic

#: Characters of an open document the server checks and navigates (4 MiB of ASCII text).
MAX_DOCUMENT_CHARS: Final = 4 * 1024 * 1024


def too_large(text: str) -> bool:
    return len(text) > MAX_DOCUMENT_CHARS


def too_large_diagnostic(path: Path, text: str) -> Diagnostic:
    """The one diagnostic of a document over the limit, at its first character."""
    # Imported here: the checker's modules stay out of the server's start-up.
    from holodeck_lsp.checker.diagnostics import Diagnostic, Range, Severity
    from holodeck_lsp.schema.codes import Code

    megabytes = len(text) / (1024 * 1024)
    return Diagnostic(
        file=str(path),
        range=Range.of(0, 0, 0, 0),
        severity=Severity.ERROR,
        code=Code.TOO_DEEP,
        message=(
            f"this document has {megabytes:.1f} MiB of text, more than the editor checks "
            f"({MAX_DOCUMENT_CHARS // (1024 * 1024)} MiB): it is not checked, and hover, "
            "outline, links and highlighting are off for it; split its test cases into a "
            "`test_cases_file`, or check it with `holodeck-lsp check FILE`"
        ),
    )
