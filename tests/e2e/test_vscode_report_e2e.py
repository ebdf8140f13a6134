"""The "HoloDeck: Open Run Report" command in a real VS Code (code-server + Chromium,
vscode_report.mjs): the sample's suite run from the editor's "Run all" lens (replaying its
recording), the run's HTML report in the extension's webview showing the run's summary, and a
click on a failed turn's cell revealing that turn's line in agent.yaml. Set-up and skipping as
in test_vscode_e2e.py (whose fixture this module uses).
"""

from __future__ import annotations

from tests.e2e.test_vscode_e2e import artifacts_dir, e2e, run_script

__all__ = ["e2e"]  # the module-scoped fixture, used by name below


def test_open_run_report_webview_reveals_a_clicked_turn(e2e: dict[str, str]) -> None:
    output = run_script(e2e, "vscode_report.mjs")
    assert "PASS: run report webview" in output, output
    assert "webview summary: " in output and "revealed: cursor on agent.yaml:" in output, output
    shots = artifacts_dir() / "holodeck-e2e-report" / "screenshots"
    for name in ("01-run-all", "02-report-webview", "03-turn-revealed"):
        assert (shots / f"{name}.png").is_file(), name
