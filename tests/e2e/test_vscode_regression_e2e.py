"""Regression marks in a real VS Code (code-server + Chromium, vscode_regression.mjs): two
runs of the sample stored by the CLI (the recording, then a copy answering one passing turn
wrongly); the editor marks that turn `⇣ regressed` in its lens, counts it on "Run all" and in
the Testing view, and the hover on its `input:` says what changed. Then "HoloDeck: Compare with
Baseline" from the command palette: its Markdown preview and the comparison page ("Open as
page", a webview with a Content-Security-Policy meta and no console error) name the regressed
turn and the base run. Set-up and skipping as in test_vscode_e2e.py (whose fixture this module
uses).
"""

from __future__ import annotations

from tests.e2e.test_vscode_e2e import artifacts_dir, e2e, run_script

__all__ = ["e2e"]  # the module-scoped fixture, used by name below


def test_regressed_turns_are_marked_in_lens_hover_and_testing_view(e2e: dict[str, str]) -> None:
    output = run_script(e2e, "vscode_regression.mjs")
    assert "PASS: regression marks" in output, output
    assert "· ⇣ 1 regressed vs " in output and "· ⇣ regressed" in output, output
    assert "⇣ Regressed against run" in output, output
    assert "PASS: Compare with Baseline" in output, output
    assert "compare page CSP: \"default-src 'none'" in output, output
    shots = artifacts_dir() / "holodeck-e2e-regression" / "screenshots"
    for name in (
        *("01-regressed-lens", "02-hover", "03-testing-view"),
        *("04-compare-preview", "05-compare-page"),
    ):
        assert (shots / f"{name}.png").is_file(), name
