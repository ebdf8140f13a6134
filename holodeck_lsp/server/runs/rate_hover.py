"""The hover of the last run's pass rates, with their 95 % intervals (docs/reports.md,
"Uncertainty"): on the `test_cases:` key, the suite's case pass rate over the cases the last
run in this editor graded; on a turn's `input:`, the pass rate of the turns at that index
across those cases. Wilson intervals: cases are independent draws, and so are the turns at one
index (each comes from a different case)."""

from __future__ import annotations

from holodeck_lsp.server.documents.parsed import Parsed
from holodeck_lsp.server.runs.inline_results import CaseRecord, InlineResults


class RateHover:
    """A `ResultHover` over the inline results (server/features/hover.py)."""

    def __init__(self, results: InlineResults) -> None:
        self._results = results

    def hover_text(self, parsed: Parsed, uri: str, line: int, character: int) -> str | None:
        if not self._results.records.get(uri):
            return None
        suite, cases = self._results.current(parsed, uri, every_case=False)
        if suite is None or not cases:
            return None
        if line == suite.key[0]:
            return _suite_text(cases, len(suite.cases))
        for case in suite.cases:
            for turn in case.turns:
                start, end = turn.input
                if start <= (line, character) <= end:
                    return _turn_index_text(cases, turn.index)
        return None


def _suite_text(cases: dict[int, CaseRecord], in_suite: int) -> str | None:
    from holodeck_lsp.engine.run_statistics import measured_case, rate_interval, rate_text

    results = [r.result for r in cases.values() if r.result is not None]
    measured = [result for result in results if measured_case(result)]
    if not measured:
        return None
    rate = rate_interval(sum(r.passed for r in measured), len(measured))
    scope = f" (of the suite's {in_suite})" if len(results) < in_suite else ""
    return (
        f"**Last run**: {rate.passed} of {rate.measured} cases passed{scope} — "
        f"{rate_text(rate)}, 95% Wilson interval"
    )


def _turn_index_text(cases: dict[int, CaseRecord], index: int) -> str | None:
    from holodeck_lsp.engine.run_statistics import rate_interval, rate_text

    turns = [r.turns[index] for r in cases.values() if index in r.turns]
    measured = [t for t in turns if not (t.skipped or t.errored)]
    if len(measured) < 2:  # one case's turn is its own verdict, shown in the inlay hint
        return None
    rate = rate_interval(sum(t.passed for t in measured), len(measured))
    return (
        f"**Turn {index}, last run**: passed in {rate.passed} of {rate.measured} cases — "
        f"{rate_text(rate)}, 95% Wilson interval"
    )
