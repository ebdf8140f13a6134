"""`holodeck-lsp compare BASE HEAD --html FILE`, through the console script: HEAD's report page
with the comparison marked and BASE's conversations beside HEAD's (docs/reports.md,
"Conversation view"); the comparison's exit status unchanged; an unwritable page is a clear
error. The page in a browser: tests/e2e/test_conversation_view_browser.py."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from bench.conversation_view import pages
from holodeck_lsp.reports.run.json_report import render
from tests.reports.test_html_report import embedded


def reports(tmp_path: Path) -> tuple[Path, Path]:
    head, base = pages(12, calls=1, result_chars=100)
    base_file, head_file = tmp_path / "base.json", tmp_path / "head.json"
    base_file.write_text(render(base), encoding="utf-8")
    head_file.write_text(render(head), encoding="utf-8")
    return base_file, head_file


def compare(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", "compare", *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_the_page_carries_both_runs(tmp_path: Path) -> None:
    base, head = reports(tmp_path)
    page = tmp_path / "out" / "page.html"
    done = compare(str(base), str(head), "--html", str(page), "--color", "never")
    # The second model is new in head, the first model's turns are the same verdicts: exit 0.
    assert done.returncode == 0, done.stderr
    assert f"report page written to {page}" in done.stdout
    data = embedded(page.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    assert [run["label"] for run in data["runs"]] == ["openai:model-a", "openai:model-b"]
    assert [run["label"] for run in data["base_runs"]] == ["openai:model-a"]
    base_turns = data["base_runs"][0]["cases"][0]["turns"]
    # Turn 0 of the baseline calls one tool fewer (bench/conversation_view.py's variant 2).
    assert [len(t.get("calls", [])) for t in base_turns[:2]] == [0, 1]
    assert data["baseline"] is not None  # the comparison, marked as for run --baseline


def test_an_unwritable_page_is_an_error_that_says_so(tmp_path: Path) -> None:
    base, head = reports(tmp_path)
    blocker = tmp_path / "file"
    blocker.write_text("", encoding="utf-8")
    done = compare(str(base), str(head), "--html", str(blocker / "page.html"))
    assert done.returncode == 2
    assert "cannot write" in done.stderr and "page.html" in done.stderr


def test_report_with_a_baseline_carries_it_too(tmp_path: Path) -> None:
    base, head = reports(tmp_path)
    page = tmp_path / "page.html"
    done = subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", "report", str(head), "--html", str(page),
         "--baseline", str(base)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    data = embedded(page.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    assert [run["label"] for run in data["base_runs"]] == ["openai:model-a"]
    alone = tmp_path / "alone.html"
    subprocess.run(
        [sys.executable, "-m", "holodeck_lsp", "report", str(head), "--html", str(alone)],
        capture_output=True, text=True, timeout=120, check=True,
    )  # fmt: skip
    assert "base_runs" not in embedded(alone.read_text(encoding="utf-8"))  # type: ignore[operator]
