"""The JSON report: the result models themselves, so `TestReport.model_validate_json` reads it
back unchanged (HoloDeck's field names; docs/running.md#reports)."""

from __future__ import annotations

from holodeck_lsp.schema.results import TestReport


def render(report: TestReport) -> str:
    return report.model_dump_json(indent=2) + "\n"
