"""The page data the conversation view draws from (reports/run/html/data.py): a baseline
report's columns ride along as `base_runs` only when given, written as compactly as the run's
own (a question the same as this run's is left out and put back by the page); the page's one
inline script holds the conversation view, covered by the policy's hash."""

from __future__ import annotations

import base64
import hashlib
import re

from bench.conversation_view import pages
from holodeck_lsp.reports.run import html
from holodeck_lsp.reports.run.html.data import page_data


def test_base_runs_only_with_a_baseline_report() -> None:
    head, base = pages(4, calls=1, result_chars=50)
    assert "base_runs" not in page_data(head)
    data = page_data(head, base_report=base)
    (column,) = data["base_runs"]
    assert column["label"] == "openai:model-a"
    turns = column["cases"][0]["turns"]
    assert [t["t"] for t in turns] == [0, 1, 2, 3]
    # The same question as this run's first column: written once, in the run's own turns.
    assert all("input" not in t for t in turns)
    assert all("input" in t for t in data["runs"][0]["cases"][0]["turns"])


def test_the_one_inline_script_holds_the_conversation_view_and_its_hash() -> None:
    head, base = pages(3, calls=1, result_chars=50)
    page = html.render_html(head, base_report=base)
    scripts = re.findall(r"<script>(.*?)</script>", page, re.S)
    assert len(scripts) == 1 and "holodeckConversation" in scripts[0]
    digest = base64.b64encode(hashlib.sha256(scripts[0].encode("utf-8")).digest()).decode()
    assert f"script-src 'sha256-{digest}'" in page
