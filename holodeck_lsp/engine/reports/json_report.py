"""The JSON report: the result models themselves, so `TestReport.model_validate_json` reads it
back unchanged (HoloDeck's report contract, data-model-032 §7a–§11)."""

from __future__ import annotations

from holodeck_lsp.schema.results import TestReport


def render(report: TestReport) -> str:
    return report.model_dump_json(indent=2) + "\n"
