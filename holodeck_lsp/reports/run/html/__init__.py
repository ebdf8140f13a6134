"""The HTML report: one self-contained page (no network, opens from disk), drawn in the
browser by `page.js` from the page data (`data.py`) embedded as JSON. See docs/reports.md.

Safety: the data goes in a `<script type="application/json">` block (never executed) with
`<`, `>`, `&` and U+2028/U+2029 escaped, so no string in a report can close the block or start
markup; the script puts text in the page with `textContent` only. The page's Content Security
Policy allows only its own inline script and style (by hash) and nothing from the network.

The template, style sheet and script are package data beside this module (read once).
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
from pathlib import Path

from holodeck_lsp.reports.run.html.data import Locations, page_data
from holodeck_lsp.reports.run.script_json import embed_json
from holodeck_lsp.schema.comparison import Comparison
from holodeck_lsp.schema.results import TestReport

_HERE = Path(__file__).parent


def render_html(
    report: TestReport,
    comparison: Comparison | None = None,
    *,
    locations: Locations | None = None,
    base_report: TestReport | None = None,
) -> str:
    """The page for `report`: one column per model, repeats as pass rates; with
    `comparison` (the report against a baseline run, from `compare`), its regressions and
    fixes marked, and with `base_report` (that baseline run) its conversations shown beside
    this run's. `locations` (case, turn) -> (line, character) in the agent file lets a
    click in the editor's view of the page reveal that turn."""
    return render_data(page_data(report, locations, comparison, base_report))


def render(report: TestReport, locations: Locations | None = None) -> str:
    """`render_html` without a baseline (the callers that predate it)."""
    return render_html(report, locations=locations)


def render_data(data: object) -> str:
    template, css, script = _assets()
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), allow_nan=False)
    return (
        template.replace("{{CSP}}", _policy(css, script))
        .replace("{{CSS}}", css)
        .replace("{{JS}}", script)
        # Last: the data may contain the other placeholders' spelling.
        .replace("{{DATA}}", embed_json(text))
    )


@functools.cache
def _assets() -> tuple[str, str, str]:
    template, css, conversation, page = (
        (_HERE / name).read_text(encoding="utf-8")
        for name in ("template.html", "page.css", "conversation.js", "page.js")
    )
    # One inline script (one hash in the policy): the conversation view first, which the
    # page's script calls.
    return template, css, conversation + "\n" + page


def _policy(css: str, script: str) -> str:
    return (
        "default-src 'none'; img-src data:; "
        f"style-src '{_sha256(css)}'; script-src '{_sha256(script)}'; "
        "base-uri 'none'; form-action 'none'"
    )


def _sha256(text: str) -> str:
    digest = hashlib.sha256(text.encode("utf-8")).digest()
    return "sha256-" + base64.b64encode(digest).decode("ascii")
