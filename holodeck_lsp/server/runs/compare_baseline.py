"""`holodeck.compareWithBaseline [uri, {"format": "markdown" | "html"}?]` ("HoloDeck: Compare
with Baseline"): the comparison the regression marks are drawn from (`regressions`), as the
Markdown `holodeck-lsp compare --format markdown` prints (reports/run/comparison), or with
`{"format": "html"}` as the run report page with the baseline marked (reports/run/html's
`render_html(report, comparison)`) — the page of head's report, its turns located in the
document as `holodeck.lastRunReport`'s are.

Answers `{"status": "done", "markdown" | "html", "base", "head", "regressions"}` or
`{"status": "none", "reason"}` (no stored run, an unknown baseline tag, …). Every text is
masked (`baseline_masking`) before it leaves the server.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from holodeck_lsp.server.runs.regressions import regressions_of

if TYPE_CHECKING:
    from holodeck_lsp.server.runs.arguments import CompareWithBaseline
    from holodeck_lsp.server.runs.state import Runner


async def compare_with_baseline(runner: Runner, arguments: CompareWithBaseline) -> dict[str, Any]:
    from holodeck_lsp.reports.run.comparison import render_markdown

    uri = arguments.uri
    if uri is None or runner.agent_of(uri) is None:
        return {"status": "none", "reason": "open an agent file to compare its runs"}
    regressions = regressions_of(runner)
    view = await regressions.view(uri)
    comparison = view.comparison
    if comparison is None or view.head_report is None:
        reason = view.reason or "nothing to compare"
        return {"status": "none", "reason": await regressions.masked(uri, view, reason)}
    answer: dict[str, Any] = {
        "status": "done",
        "base": await regressions.masked(uri, view, comparison.base.label),
        "head": await regressions.masked(uri, view, comparison.head.label),
        "regressions": len(comparison.of_kind("regression")),
    }
    if arguments.format == "html":
        from holodeck_lsp.reports.run.html import render_html
        from holodeck_lsp.server.runs.report_page import locations

        page = render_html(
            view.head_report,
            comparison,
            locations=await locations(runner, uri),
            base_report=view.base_report,
        )
        answer["html"] = await regressions.masked(uri, view, page)
    else:
        answer["markdown"] = await regressions.masked(uri, view, render_markdown(comparison))
    return answer
