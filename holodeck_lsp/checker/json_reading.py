"""JSON from files holodeck-lsp did not write itself (reports, stored runs, journals, cassettes,
import sources), read without a traceback whatever they hold.

`json.loads` recurses once per nested array or object: a report of 100,000 nested arrays
raised RecursionError out of `report` and `compare` (issue 35). Here such a text is a
`JsonTooDeep`, a `json.JSONDecodeError` — so every reader's "is not JSON (line N: …)" message
already covers it — pointing at the bracket where the limit is passed (docs/checks.md,
"Limits on what is read").
"""

from __future__ import annotations

import json
import os
import re
from typing import Any

from holodeck_lsp.checker.file_reading import read_file_text

#: Where the message places a text `json.loads` could not read for its depth: deeper than
#: anything holodeck-lsp writes (a report nests about ten levels, a tool call's arguments a
#: few more); `json.loads` itself gives up near the recursion limit (1,000).
MAX_JSON_NESTING = 500
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]', re.DOTALL)


class JsonTooDeep(json.JSONDecodeError):
    """Arrays and objects nested past MAX_JSON_NESTING; `lineno` / `colno` say where."""


def _too_deep_at(text: str, limit: int) -> int:
    """The offset of the bracket that opens level `limit + 1` (0 when none is found)."""
    depth = 0
    for match in _TOKEN.finditer(text):
        token = match.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return match.start()
        elif token in "]}":
            depth -= 1
    return 0


def loads_json(text: str | bytes) -> Any:
    """`json.loads(text)`, with JsonTooDeep instead of RecursionError. (What `json.loads`
    returns nests less than the interpreter's recursion limit; the slow search for the place
    runs only for a text that nests deeper.)"""
    try:
        return json.loads(text)
    except RecursionError:
        pass
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    raise JsonTooDeep(
        f"arrays and objects nested more than {MAX_JSON_NESTING} levels deep, which no file "
        "holodeck-lsp writes has",
        text,
        _too_deep_at(text, MAX_JSON_NESTING),
    )


def read_json_file(path: str | os.PathLike[str], errors: str = "strict") -> Any:
    """The JSON value in the file at `path`, read through `read_file_text` (a regular file
    within the size limit) and `loads_json`."""
    return loads_json(read_file_text(path, "utf-8", errors))
