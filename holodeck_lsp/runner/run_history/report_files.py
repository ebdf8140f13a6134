"""Read a JSON report file written by `run --report-json`, raising instead of printing.

The core's reader: `compare`, `report` and the editor's baseline all read report files through
here, and each front end decides how to show a `ReportUnreadable`. A report written by an older
or newer version may carry fields this one does not know; they are dropped and named through
`warn`, so a version skew never blocks a comparison.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from holodeck_lsp.checker.json_reading import read_json_file
from holodeck_lsp.schema.results import TestReport

# How many schema problems one message lists before "and N more".
SHOWN_PROBLEMS = 5
_WRITTEN_BY = "pass a file written by `holodeck-lsp run --report-json`"


class ReportUnreadable(Exception):
    """The file cannot be read as a report; the message leads with the cause and the fix."""


def read_report_file(path: Path, warn: Callable[[str], None] | None = None) -> TestReport:
    """The report in `path`; `warn` hears about unknown fields that were dropped."""
    try:
        raw = read_json_file(path, errors="replace")
    except OSError as error:
        raise ReportUnreadable(f"cannot read {path}: {error.strerror or error}") from None
    except json.JSONDecodeError as error:
        raise ReportUnreadable(
            f"{path} is not JSON (line {error.lineno}: {error.msg}); {_WRITTEN_BY}"
        ) from None
    try:
        return TestReport.model_validate(raw)
    except ValidationError as error:
        failure = error
    unknown = [e["loc"] for e in failure.errors() if e["type"] == "extra_forbidden"]
    if unknown and len(unknown) == failure.error_count():
        for loc in unknown:
            _drop(raw, loc)
        names = sorted({".".join(str(p) for p in loc if not isinstance(p, int)) for loc in unknown})
        if warn is not None:
            warn(f"{path}: ignored fields this version does not know: " + ", ".join(names))
        try:
            return TestReport.model_validate(raw)
        except ValidationError as again:
            failure = again
    problems = [
        f"{'.'.join(str(p) for p in e['loc']) or '(top level)'}: {e['msg']}"
        for e in failure.errors()
    ]
    more = len(problems) - SHOWN_PROBLEMS
    shown = "; ".join(problems[:SHOWN_PROBLEMS]) + (f"; and {more} more" if more > 0 else "")
    raise ReportUnreadable(f"{path} is not a holodeck-lsp JSON report ({shown}); {_WRITTEN_BY}")


def _drop(data: Any, loc: tuple[int | str, ...]) -> None:
    """Remove the field at `loc` from the parsed JSON."""
    target = data
    for part in loc[:-1]:
        target = target[part]
    if isinstance(target, dict):
        target.pop(loc[-1], None)
