"""The JSON report: the result models themselves, so `TestReport.model_validate_json` reads it
back unchanged (HoloDeck's field names; docs/running.md#reports) — plus `"statistics"`, the
run's intervals, pass^k and per-model cost and latency (docs/reports.md, "Statistics"), which
are derived from the results and dropped again when the file is read."""

from __future__ import annotations

from holodeck_lsp.engine.run_statistics import run_statistics
from holodeck_lsp.schema.results import TestReport


def render(report: TestReport) -> str:
    body = report.model_dump_json(indent=2)
    figures = run_statistics(report).model_dump_json(indent=2)
    # JSON strings hold no raw line breaks, so indenting the statistics is a replace; they go
    # last, before the report's closing brace.
    return body[:-2] + ',\n  "statistics": ' + figures.replace("\n", "\n  ") + "\n}\n"
